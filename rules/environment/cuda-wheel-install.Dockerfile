FROM python:3.11-slim
# ruleid: cuda-wheel-install
RUN pip install torch==2.3.0 --index-url https://download.pytorch.org/whl/cu121
# ok: cuda-wheel-install
RUN pip install torch==2.3.0 --index-url https://download.pytorch.org/whl/cpu
# ruleid: cuda-wheel-install
RUN pip3 install torch==2.1.0+cu118 -f https://download.pytorch.org/whl/torch_stable.html
