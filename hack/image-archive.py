#!/usr/bin/env python3
"""Packs a root filesystem folder into a one-layer image in docker-archive format.

That is the format `docker save` writes: `ctr images import` loads it into containerd without a
registry, and Jib takes it as a base image (`jib.from.image=tar://...`).
Usage: image-archive.py ROOTFS OUT.tar REFERENCE [--entrypoint CMD] [--env K=V]...
Prints REFERENCE.
"""
import argparse
import hashlib
import json
import os
import subprocess
import tarfile
import tempfile


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("rootfs")
    parser.add_argument("out")
    parser.add_argument("reference")
    parser.add_argument("--entrypoint", action="append", default=[])
    parser.add_argument("--env", action="append", default=[])
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(args.out))) as tmp:
        layer = os.path.join(tmp, "layer.tar")
        # GNU tar keeps owners, modes, links and device nodes exactly as debootstrap made them.
        subprocess.run(
            ["tar", "--numeric-owner", "--xattrs", "-C", args.rootfs, "-cf", layer, "."],
            check=True,
        )
        digest = sha256(layer)
        env = ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"] + args.env
        config = {
            "architecture": "amd64",
            "os": "linux",
            "config": {"Env": env, "Entrypoint": args.entrypoint or None, "WorkingDir": "/"},
            "rootfs": {"type": "layers", "diff_ids": ["sha256:" + digest]},
            "history": [{"created_by": "bosun hack/install-node.sh"}],
        }
        config_bytes = json.dumps(config, sort_keys=True).encode()
        config_name = hashlib.sha256(config_bytes).hexdigest() + ".json"
        manifest = [
            {"Config": config_name, "RepoTags": [args.reference], "Layers": [digest + "/layer.tar"]}
        ]
        partial = args.out + ".partial"
        with tarfile.open(partial, "w") as out:
            add_bytes(out, config_name, config_bytes)
            out.add(layer, arcname=digest + "/layer.tar")
            add_bytes(out, "manifest.json", json.dumps(manifest).encode())
            add_bytes(
                out,
                "repositories",
                json.dumps(
                    {args.reference.rsplit(":", 1)[0]: {args.reference.rsplit(":", 1)[1]: digest}}
                ).encode(),
            )
        os.replace(partial, args.out)
    print(args.reference)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def add_bytes(out, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o644
    import io

    out.addfile(info, io.BytesIO(data))


if __name__ == "__main__":
    main()
