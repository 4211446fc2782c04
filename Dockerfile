# RunWay Pair's machine in a container: Debian 12 (bookworm) with the Swift toolchain CI uses, and the
# system packages scripts/setup installs for CI — the same script, run the same way. For a Mac (Docker
# Desktop, OrbStack, Colima, Podman, …), where the simulator does not run natively (docs/platforms.md):
#
#   docker build -t runway-pair .
#   docker run --rm -it --init -v "$PWD":/work -v runway-pair-build:/work/.build runway-pair scripts/test
#
# The checkout is mounted, not copied: edit on the Mac, build and run in the container. `.build` lives in a
# volume of its own (a Linux build on the Mac's file system is slower, and would mix with a macOS one).
ARG SWIFT_IMAGE=swift:6.3-bookworm
FROM ${SWIFT_IMAGE}
COPY scripts/setup /usr/local/share/runway-pair/setup
RUN CI=true /usr/local/share/runway-pair/setup --for test
WORKDIR /work
CMD ["bash"]
