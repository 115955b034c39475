"""The container recipe of batch grading in the repository: ``deploy/Dockerfile`` (the grading image) and
``deploy/kubernetes/job.yaml`` (the Indexed Job of docs/instructors.md), parsed as Docker and Kubernetes
read them (dockerfile-parse, PyYAML): the Job calls the image's own Python by its path, never a bare
``python``; the image installs bubblewrap, torch's CPU build and the kit with what grading needs, nothing
of ``dev``, no solutions; the guide's copy of the Job is the file."""

from __future__ import annotations

import re
import shlex

import yaml
from dockerfile_parse import DockerfileParser

from grader.course.gradescope import KIT_EXTRAS, TORCH_VERSION
from grader.course.release import readme_block
from tests.grader.course.helpers import ROOT

DOCKERFILE = ROOT / "deploy" / "Dockerfile"
JOB = ROOT / "deploy" / "kubernetes" / "job.yaml"


def _image():
    parser = DockerfileParser(fileobj=DOCKERFILE.open("rb"))
    return parser, parser.structure


def _runs(structure) -> str:
    return "\n".join(i["value"] for i in structure if i["instruction"] == "RUN")


def _venv_python(structure) -> str:
    """The Python of the virtual environment the image makes (``python -m venv DIR``)."""
    (folder,) = re.findall(r"python -m venv (\S+)", _runs(structure))
    return f"{folder}/bin/python"


def _job() -> dict:
    return yaml.safe_load(JOB.read_text(encoding="utf-8"))


def _script(job: dict) -> str:
    (container,) = job["spec"]["template"]["spec"]["containers"]
    assert container["command"] == ["sh", "-c"]
    (script,) = container["args"]
    return script


def test_the_job_calls_the_images_python() -> None:
    job = _job()
    script = _script(job)
    python = _venv_python(_image()[1])
    words = shlex.split(script.replace("\\\n", " "))
    assert "python" not in words and "python3" not in words, script  # not whatever `python` PATH finds
    assert words[words.index("exec") + 1] == python, script
    assert words[words.index("exec") + 2 : words.index("exec") + 5] == ["-m", "grader", "grade"]


def test_the_job_is_an_indexed_job_of_n_shards() -> None:
    job = _job()
    assert (job["apiVersion"], job["kind"]) == ("batch/v1", "Job")
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed" and spec["template"]["spec"]["restartPolicy"] == "Never"
    script = _script(job)
    assert "K=$((JOB_COMPLETION_INDEX + 1))" in script  # shards count from 1, indexes from 0
    (count,) = re.findall(r'--shard "\$K/(\d+)"', script)
    assert int(count) == spec["completions"]
    (container,) = spec["template"]["spec"]["containers"]
    (jobs,) = re.findall(r"--jobs (\d+)", script)
    assert container["resources"]["limits"]["cpu"] == container["resources"]["requests"]["cpu"] == jobs
    mounts = {m["mountPath"] for m in container["volumeMounts"]}
    assert all(path.startswith(tuple(mounts)) for path in re.findall(r"(/data/\S+?)[\"\s]", script))


def test_the_image_holds_what_grading_needs_and_nothing_else() -> None:
    parser, structure = _image()
    assert parser.baseimage.startswith("python:")
    runs = _runs(structure)
    assert re.search(r"apt-get install[^\n]*\bbubblewrap\b", runs), runs
    assert parser.args.get("TORCH_VERSION") == TORCH_VERSION  # the version Gradescope's setup.sh installs
    assert '"torch==${TORCH_VERSION}"' in runs and "--index-url https://download.pytorch.org/whl/cpu" in runs
    (kit,) = re.findall(r'pip install --no-cache-dir "(/opt/perfkit/src\[[^\]]*\])"', runs)
    assert kit == f"/opt/perfkit/src[{KIT_EXTRAS}]" and "dev" not in kit
    copied = [i["value"].split()[:-1] for i in structure if i["instruction"] == "COPY"]
    sources = {part for parts in copied for part in parts}
    assert sources == {"pyproject.toml", "README.md", "perfcore", "grader"}, sources  # no solutions, no tests
    assert all((ROOT / source).exists() for source in sources)
    user = [i["value"] for i in structure if i["instruction"] == "USER"]
    assert user and user[-1] != "root" and user[-1] != "0"
    securities = _job()["spec"]["template"]["spec"]["securityContext"]
    assert str(securities["runAsUser"]) == user[-1]


def test_the_guides_job_is_the_file() -> None:
    guide = (ROOT / "docs" / "instructors.md").read_text(encoding="utf-8")
    assert readme_block(guide, "k8s-job", "docs/instructors.md") == JOB.read_text(encoding="utf-8").strip()
