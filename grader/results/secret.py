"""The kit's secret: 32 random bytes made once per account in the user's cache folder, never in the repository.

Two things are keyed with it: the verdicts the pytest plugin keeps between a student's runs
(:mod:`.reuse` signs each entry, so one written by anything but this kit on this account does not verify),
and the probes a measuring check draws (:func:`grader.judge.runners.rounds.probe_seed`: the same code meets
the same probe on one account, and cannot work the draws out itself).
"""

from __future__ import annotations

import os
import secrets

from perfcore.measure.profile import cache_dir

#: The file of the secret, in the user's cache folder (never the repository).
KEY_FILE = "verdict-key"


def signing_key() -> bytes | None:
    """The kit's secret: read from :data:`KEY_FILE` in the user's cache folder, made there (readable by this
    user alone) the first time; None where it can be neither read nor made (then nothing is kept or reused,
    and the probes are drawn from the submission's bytes alone)."""
    path = cache_dir() / KEY_FILE
    for _ in range(2):
        try:
            secret = path.read_bytes()
            return secret if len(secret) >= 32 else None
        except FileNotFoundError:
            pass
        except OSError:
            return None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue  # another run made it meanwhile: read theirs
        except OSError:
            return None
        with os.fdopen(fd, "wb") as fh:
            fh.write(secrets.token_bytes(32))
    return None
