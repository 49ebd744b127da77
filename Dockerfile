# The chaos binary alone, FROM scratch: nothing is pulled. `make image`
# builds the static binary on the host first (bin/chaos, CGO_ENABLED=0), so
# the build needs no network and its context (.dockerignore) is that file.
#
# It runs `chaos run --runtime external` against servers it reaches over the
# network (the default --store, store, is /store: mount a volume there). It
# has no shell, so no --fault-hook (each runs with sh -c): for hooks, layer
# the binary on an image that has sh and your cluster's tools, as
# deploy/kubernetes/Dockerfile does on a kubectl image.
FROM scratch
COPY bin/chaos /chaos
ENTRYPOINT ["/chaos"]
