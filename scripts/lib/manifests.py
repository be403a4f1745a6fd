"""A folder of Kubernetes manifests as scripts/checks/kubernetes.sh's checks read it: its
kustomization.yaml, which must list every other .yaml of the folder and nothing else, and their
documents; disagreements are collected by `check` and reported together by `finish`."""
import os
import sys

import yaml


class Manifests:
    def __init__(self, folder):
        self.errors = []
        self.kustomization = yaml.safe_load(open(os.path.join(folder, "kustomization.yaml")))
        self.files = sorted(f for f in os.listdir(folder) if f.endswith(".yaml") and f != "kustomization.yaml")
        listed = sorted(self.kustomization.get("resources", []))
        self.check(listed == self.files, f"kustomization.yaml resources {listed} != files {self.files}")
        self.docs = [d for f in self.files for d in yaml.safe_load_all(open(os.path.join(folder, f))) if d]

    def check(self, ok, message):
        if not ok:
            self.errors.append(message)

    def finish(self, problem):
        """Exits 1 naming every disagreement under `problem` if there was one."""
        if self.errors:
            print(f"kubernetes: {problem}:", file=sys.stderr)
            for e in self.errors:
                print("  " + e, file=sys.stderr)
            sys.exit(1)
