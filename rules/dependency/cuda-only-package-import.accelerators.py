# PickScore's default accelerator: accelerate imports deepspeed for its DeepSpeed plugin, though no
# line here imports deepspeed.
from accelerate import Accelerator, DeepSpeedPlugin


def plain():
    # ok: cuda-only-package-import
    return Accelerator(mixed_precision="no")


def deepspeed_accelerator(config):
    # ruleid: cuda-only-package-import
    plugin = DeepSpeedPlugin(hf_ds_config=config)
    return Accelerator(deepspeed_plugin=plugin)
