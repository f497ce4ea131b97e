from setuptools import setup

setup(
    name="lab-model",
    install_requires=["numpy"],
    extras_require={
        # ruleid: cuda-only-optional-group
        "cuda": ["cupy-cuda12x", "pynvml"],
        # ok: cuda-only-optional-group
        "dev": ["pytest"],
    },
)
