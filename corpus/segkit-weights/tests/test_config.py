import yaml


def test_config_has_a_device():
    with open("configs/test.yaml") as f:
        assert yaml.safe_load(f)["device"]
