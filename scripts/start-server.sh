#!/bin/sh
# The built server as `make start`, `make run` and `npm start` run it (the Dockerfile sets the same):
# glibc's malloc with two arenas and every block of 1 MiB or more mapped on its own, so that what
# libvips frees after an image goes back to the system instead of staying in per-thread arenas.
# Twenty parallel 15 MB uploads peaked at idle + 381 MiB with glibc's defaults and + 247 MiB with
# these (bench/NOTES.md, "parallel uploads"). A value already in the environment wins.
: "${MALLOC_ARENA_MAX:=2}"
: "${MALLOC_MMAP_THRESHOLD_:=1048576}"
export MALLOC_ARENA_MAX MALLOC_MMAP_THRESHOLD_
exec node dist/main.js "$@"
