from setuptools import setup

# ok: cuda-only-package-dependency
BASE = ["numpy", "einops"]  # flash-attn is optional (a package name in a comment)

setup(
    name="lab-model",
    install_requires=BASE + [
    ],
    extras_require={
        "attn": [
            # ruleid: cuda-only-package-dependency
            "xformers>=0.0.23",
            # ok: cuda-only-package-dependency
            "einops",
        ],
    },
    setup_requires=[
        # ruleid: cuda-only-package-dependency
        "mamba-ssm",
    ],
)
