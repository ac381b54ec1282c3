# syntax=docker/dockerfile:1
#
# stakeout container image: one image, two roles.
#   docker run IMAGE              -> `stakeout serve`  (HTTP API on 0.0.0.0:8000)
#   docker run IMAGE worker       -> `stakeout worker` (RQ worker, queues bots + scoring)
#
# Two stages: the builder (full Debian image, compilers available in case a dependency has no
# wheel) installs the project into a virtualenv at /opt/venv; the runtime stage is the slim
# image plus that venv and nothing else. Both stages use the same Python build and the same
# Debian release, so the venv's interpreter symlink (/usr/local/bin/python3.11) and any
# compiled extensions resolve identically.
# Checked offline by tests/k8s/test_dockerfile.py (structure + hadolint).

ARG PYTHON_VERSION=3.11
ARG DEBIAN_RELEASE=trixie

FROM python:${PYTHON_VERSION}-${DEBIAN_RELEASE} AS builder

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH

RUN python -m venv /opt/venv

WORKDIR /src
# Only what `pip install .` needs: the project metadata, its readme (setuptools reads it) and
# the three packages. Tests, docs, k8s/ and the dev venv never enter the build context
# (see .dockerignore).
COPY pyproject.toml README.md ./
COPY domain ./domain
COPY service ./service
COPY workers ./workers
COPY stakeout ./stakeout

# A regular (non-editable) install: the runtime stage gets the code inside site-packages and
# never needs /src. Byte-code is compiled here because the runtime root filesystem is
# read-only in Kubernetes (no __pycache__ writes at run time).
# hadolint ignore=DL3013
RUN pip install --upgrade pip \
 && pip install . \
 && python -m compileall -q /opt/venv \
 && python -c "import domain, service, workers, stakeout.cli"


FROM python:${PYTHON_VERSION}-slim-${DEBIAN_RELEASE} AS runtime

LABEL org.opencontainers.image.title="stakeout" \
      org.opencontainers.image.description="Event-sourced game server: API (serve) and RQ worker (worker)"

# Fixed numeric ids so Kubernetes can enforce runAsNonRoot (it checks the numeric USER) and
# volumes can be given to fsGroup 10001.
RUN groupadd --system --gid 10001 stakeout \
 && useradd --system --uid 10001 --gid 10001 --no-create-home \
        --home-dir /nonexistent --shell /usr/sbin/nologin stakeout

COPY --from=builder /opt/venv /opt/venv

ENV VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HOST=0.0.0.0 \
    PORT=8000 \
    LOG_LEVEL=INFO

WORKDIR /tmp
USER 10001:10001
EXPOSE 8000

# For plain `docker run` of the API only; Kubernetes ignores HEALTHCHECK and uses the probes in
# k8s/. For the worker role run with --no-healthcheck (or rely on `stakeout worker-health`).
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('PORT', '8000'), timeout=2)"]

# SIGTERM goes straight to the Python process (exec form, no shell in between): uvicorn drains
# in-flight requests, the RQ worker finishes its current job.
STOPSIGNAL SIGTERM
ENTRYPOINT ["stakeout"]
CMD ["serve"]
