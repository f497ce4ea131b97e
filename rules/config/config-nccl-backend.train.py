import hydra
import torch.distributed as dist


@hydra.main(config_path="conf", config_name="config", version_base=None)
def main(cfg):
    dist.init_process_group(backend=cfg.distributed.backend)


if __name__ == "__main__":
    main()
