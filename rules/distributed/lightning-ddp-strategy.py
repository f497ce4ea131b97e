import pytorch_lightning as pl
import torch
from lightning.fabric import Fabric
from pytorch_lightning.strategies import DDPStrategy
from transformers import Trainer as HFTrainer


def build(args, n_gpus):
    # ruleid: lightning-ddp-strategy
    trainer = pl.Trainer(accelerator="gpu", devices=8, strategy="ddp")
    # ruleid: lightning-ddp-strategy
    sharded = pl.Trainer(strategy="ddp_sharded", precision=16)
    # ruleid: lightning-ddp-strategy
    explicit = pl.Trainer(strategy=DDPStrategy(find_unused_parameters=False))
    # ruleid: lightning-ddp-strategy
    fabric = Fabric(strategy="ddp_spawn", devices=2)
    # ok: lightning-ddp-strategy
    single = pl.Trainer(strategy="auto", devices=1)
    # ok: lightning-ddp-strategy
    deep = pl.Trainer(strategy="deepspeed_stage_2")
    # ok: lightning-ddp-strategy
    other = HFTrainer(model=None, args=args)
    # ok: lightning-ddp-strategy
    label = "ddp"
    return trainer, sharded, explicit, fabric, single, deep, other, label


def default_strategy():
    # DynamiCrafter's utils_train.get_trainer_strategy(): a config target the trainer builds
    # ruleid: lightning-ddp-strategy
    return {"target": "pytorch_lightning.strategies.DDPShardedStrategy"}


def chosen(num_gpus):
    # ok: lightning-ddp-strategy
    return pl.Trainer(strategy="ddp" if num_gpus > 1 else "auto")
