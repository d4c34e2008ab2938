# The seed's developer and demo workflow under its own target and variable
# names. Each target runs our TypeScript tools (packages/dev-workflow,
# packages/demo); `make help` lists them. They work against any kcp (your
# KUBECONFIG) and Crossplane cluster (CROSSPLANE_KUBECONFIG); `make local-up`
# starts both on this machine, with simulators for OTC and Crossplane's OTC
# provider, and sets the variables below for the targets that follow.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

# Written by `make local-up`: KUBECONFIG, CROSSPLANE_KUBECONFIG, OTC_* and HELM
# for the local servers. Variables you set yourself win (`?=` there).
-include .cache/local/make.env

# The seed's variables, and ours (KCP_PROVIDER_WORKSPACE, IMG, ...), passed to
# the tools through the environment: credentials never appear in a command line.
export KUBECONFIG KCP_WORKSPACE KCP_PROVIDER_WORKSPACE CROSSPLANE_KUBECONFIG OTC_CREDENTIALS_FILE \
  OTC_ACCESS_KEY OTC_SECRET_KEY DEMO_REGION OTC_AUTH_URL OTC_PROJECT_NAME DEMO_TIMEOUT DEMO_POLL_INTERVAL \
  DEMO_KUBECONFIG KCP_CONTROLLER_KUBECONFIG NAMESPACE RELEASE IMG HELM KIND KIND_CLUSTER_NAME DOCKER \
  METRICS_BIND_ADDRESS HEALTH_PROBE_BIND_ADDRESS CONTROLLER_ARGS ROLLOUT_TIMEOUT

# Installs the dependencies and builds whenever a source changed (the servers'
# binaries only for local-up, which starts them).
SETUP_STAMP := .cache/make/setup.stamp
SOURCES := $(shell find packages -path '*/node_modules' -prune -o -path '*/dist' -prune -o \( -name '*.ts' -o -name package.json \) -print) pnpm-lock.yaml
$(SETUP_STAMP): $(SOURCES)
	@SETUP_BINARIES=0 bash scripts/setup.sh
	@mkdir -p $(@D) && touch $@

DEV := bash scripts/make-target.sh

.PHONY: help generate manifests crossplane-kind crossplane-create-otc-secret otc-config demo-secret-create \
  demo-apply-cluster demo-up demo-kubeconfig run-kcp-local deploy-kcp-controller docker-build local-up local-down

help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  %-30s %s\n", $$1, $$2}' $(MAKEFILE_LIST)
	@echo
	@echo "Variables: KUBECONFIG (kcp), KCP_WORKSPACE, KCP_PROVIDER_WORKSPACE (root:edgeconnect), CROSSPLANE_KUBECONFIG,"
	@echo "  OTC_CREDENTIALS_FILE, OTC_ACCESS_KEY, OTC_SECRET_KEY, DEMO_REGION (eu-de), OTC_AUTH_URL, OTC_PROJECT_NAME,"
	@echo "  DEMO_TIMEOUT (45m), DEMO_KUBECONFIG, KCP_CONTROLLER_KUBECONFIG, NAMESPACE, RELEASE, IMG, HELM"

generate: $(SETUP_STAMP) ## TypeScript types from the CRDs: ours, kcp's and the Cluster API provider's
	@bash scripts/make-target.sh --node scripts/generate-kcp-types.mjs
	@bash scripts/make-target.sh --node scripts/generate-capi-provider-api.mjs
	@bash scripts/make-target.sh --node scripts/generate-api.mjs

manifests: $(SETUP_STAMP) ## The APIExport, APIResourceSchemas, WorkspaceType and catalogue CRD in apiexports/ from packages/api/crds
	@bash scripts/make-target.sh --node scripts/generate-api.mjs

crossplane-kind: $(SETUP_STAMP) ## A kind cluster with Crossplane and the OTC provider (needs Docker; CROSSPLANE_KUBECONFIG, default /tmp/devfw-kind.kubeconfig)
	@$(DEV) $@

crossplane-create-otc-secret: $(SETUP_STAMP) ## Secret crossplane-system/opentelekomcloud-credentials from OTC_CREDENTIALS_FILE (password or AK/SK format) on CROSSPLANE_KUBECONFIG
	@$(DEV) $@

otc-config: $(SETUP_STAMP) ## Show the demo YAML files to edit
	@$(DEV) $@

demo-secret-create: $(SETUP_STAMP) ## Namespace demo and Secret demo/otc-creds from OTC_ACCESS_KEY/OTC_SECRET_KEY in KCP_WORKSPACE (made if missing)
	@$(DEV) $@

demo-apply-cluster: $(SETUP_STAMP) ## Apply hack/examples/demo/*.yaml in KCP_WORKSPACE
	@$(DEV) $@

demo-up: $(SETUP_STAMP) ## Wait for VpcV1, SubnetV1, ClusterV3 (Synced, Ready) and NodePoolV3 (Synced) of the demo cluster on CROSSPLANE_KUBECONFIG
	@$(DEV) $@

demo-kubeconfig: $(SETUP_STAMP) ## Write the demo cluster's kubeconfig from KCP_WORKSPACE to DEMO_KUBECONFIG (default .cache/make/)
	@$(DEV) $@

run-kcp-local: $(SETUP_STAMP) ## Run the provider-controller here: kcp from KUBECONFIG, infrastructure CROSSPLANE_KUBECONFIG
	@$(DEV) $@

deploy-kcp-controller: $(SETUP_STAMP) ## Install the controller's chart on CROSSPLANE_KUBECONFIG, its kcp kubeconfig in a Secret
	@$(DEV) $@

docker-build: $(SETUP_STAMP) ## Build the provider-controller image IMG (needs Docker)
	@$(DEV) $@

local-up: ## Start kcp, the infrastructure cluster and the OTC and Crossplane simulators here, in the background
	@bash scripts/local.sh up

local-down: ## Stop what local-up started
	@bash scripts/local.sh down
