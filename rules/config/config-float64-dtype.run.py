import argparse
import json

import yaml

parser = argparse.ArgumentParser()
parser.add_argument("--config", default="sim.yml")
args = parser.parse_args()
cfg = yaml.safe_load(open(args.config))
exp = json.load(open("experiment.json"))
dtype = exp["model"]["dtype"]
precision = cfg["solver"].get("precision")
