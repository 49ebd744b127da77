// Package kubernetes holds the manifests that run chaos in a Kubernetes
// cluster (README, "On Kubernetes"). Its only Go is the test that decodes
// them with the Kubernetes API types, so only that test compiles k8s.io.
package kubernetes
