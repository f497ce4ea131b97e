# Lightning imports deepspeed for its DeepSpeed strategy.
import pytorch_lightning as pl
from pytorch_lightning.strategies import DeepSpeedStrategy


def trainer():
    # ruleid: cuda-only-package-import
    return pl.Trainer(strategy=DeepSpeedStrategy(stage=2))
