# MarginCMS tasks. `make help` lists them.
SHELL := /bin/bash
.DEFAULT_GOAL := help
BIN := node_modules/.bin
MOCK_PORT ?= 4010

.PHONY: help install build start run dev docs generate check-generated lint format typecheck test test-unit mock migrate purge user bench-db soak-pool bench bench-ab bench-scale bench-soak bench-transfer bench-import bench-admin clean delete-data

help: ## List the tasks
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/\$$(MOCK_PORT)/$(MOCK_PORT)/g' | awk -F':.*## ' '{printf "  make %-16s %s\n", $$1, $$2}'

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

install: node_modules/.installed ## Install dependencies (npm ci) when package files changed

build: install generate ## Bundle src/ into dist/ with esbuild (the server, the margin CLI, migrate, create-user, purge) and the admin app (the production build)
	node scripts/build.mjs
	@touch dist/.built

# What the build reads. migrate, purge and user build first only when one of these changed since the
# last build, so that `make user` beside a running `make run` does not rewrite the dist/ it serves.
BUILD_INPUTS := $(shell find src admin/src admin/public openapi drizzle -type f -not -name '*.test.ts' -not -name '*.test.tsx' 2>/dev/null) \
	admin/index.html admin/vite.config.ts scripts/build.mjs scripts/migrate.ts scripts/create-user.ts scripts/purge.ts bin/margin.mjs

dist/.built: node_modules/.installed $(BUILD_INPUTS)
	node scripts/generate.mjs
	node scripts/build.mjs
	@touch $@

start: ## Start the built server (node dist/main.js with the malloc settings of scripts/start-server.sh); run `make build` first
	@test -f dist/main.js || { echo 'dist/main.js is missing: run `make build` first'; exit 2; }
	scripts/start-server.sh

run: build ## Build, then start the server (embedded PGlite under .data/ unless DATABASE_URL is set) on http://localhost:8080
	scripts/start-server.sh

dev: generate ## Server in watch mode, generated/ rebuilt when openapi/ changes (after lint), the mock on $(MOCK_PORT), the admin on :5173/admin/ over the mock (ADMIN_API=server: over the server); Ctrl-C stops all
	node scripts/dev.mjs

docs: generate ## Write the static, self-contained API reference (Redocly; loads nothing from another origin) to build/api-reference.html for publishing
	node scripts/build-docs.mjs build/api-reference.html

generate: install ## Bundle openapi/ into generated/openapi.json and generated/api.d.ts
	node scripts/generate.mjs

check-generated: install ## Fail when generated/ is stale
	node scripts/generate.mjs --check

lint: install ## Lint the split spec, the code (ESLint, with the layer rule; madge: no import cycle, type-only imports included; no function of src/ over 120 lines) and its format (Prettier), and find dead code (knip)
	node scripts/redocly.mjs lint --config openapi/redocly.yaml openapi/openapi.yaml
	$(BIN)/eslint --max-warnings 0 .
	npm run --silent lint:cycles
	$(BIN)/tsx scripts/function-length.ts
	$(BIN)/prettier --check --log-level warn .
	$(BIN)/knip

format: install ## Format the tree with Prettier
	$(BIN)/prettier --write --log-level warn .

typecheck: install ## Type-check everything (handlers against the generated types; the admin app against src/client)
	$(BIN)/tsc -p tsconfig.json
	$(BIN)/tsc -p admin

test-unit: install dist/.built ## Run the test suites only (the built commands first: tests run `npm run user:create`, i.e. dist/create-user.js); then the slowest files
	@status=0; $(BIN)/vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json || status=$$?; \
	node scripts/slowest-tests.mjs test-results/vitest.json 15; exit $$status

test: lint check-generated typecheck test-unit ## Lint (spec, code, format, dead code), check generated/, type-check and run every test

mock: install ## Serve the contract with Prism on 127.0.0.1:$(MOCK_PORT) (a 422 lists the request's own violations)
	node scripts/mock.mjs --host 127.0.0.1 --port $(MOCK_PORT)

migrate: dist/.built ## Apply drizzle/ migrations to DATABASE_URL, or to the embedded PGlite under DATA_DIR (node dist/migrate.js)
	node dist/migrate.js

purge: dist/.built ## Delete expired idempotency keys, old login failures and spent refresh tokens once (DATABASE_URL or DATA_DIR; node dist/purge.js)
	node dist/purge.js

user: ## Create or reset a user: make user EMAIL=… NAME=… (password from stdin or ADMIN_PASSWORD; node dist/create-user.js)
	@test -n "$(EMAIL)" || { echo 'usage: make user EMAIL=ada@example.com NAME="Ada Lovelace"'; exit 2; }
	@$(MAKE) --no-print-directory dist/.built
	node dist/create-user.js --email "$(EMAIL)" --name "$(or $(NAME),Admin)"

bench-db: install ## Seed 10k and 100k posts in a scratch PostgreSQL database; print median times and plans
	$(BIN)/tsx scripts/bench-db.ts

soak-pool: install ## Saturate the PostgreSQL pool for SOAK_SECONDS (300) and compare first/last minute throughput
	$(BIN)/tsx scripts/soak-pool.ts

bench: install ## API vs a minimal floor server on scratch PostgreSQL, the Content API list also for br and gzip clients (bytes per answer); BENCH_QUICK=1: one short round, ~1 min; BENCH_SCENARIOS=a,b: only those; run `make build` first
	$(BIN)/tsx bench/run.ts

bench-ab: install ## Creates of this build vs REV's (default 6ae7ed6), built in a git worktree, interleaved; WAL per create; run `make build` first
	bash scripts/bench-ab.sh $(or $(REV),6ae7ed6)

bench-scale: install ## API p50 of list, deep page, tag and q at 1k and 100k posts (BENCH_SCALE_MAX); run `make build` first
	$(BIN)/tsx bench/scale.ts

bench-soak: install ## Saturated mixed load on the API for BENCH_SOAK_SECONDS (600): req/s per minute, RSS; run `make build` first
	$(BIN)/tsx bench/soak.ts

bench-transfer: install ## Whole-site export and import (dry run, apply, again) of BENCH_POSTS (10000): posts/s and peak RSS; run `make build` first
	$(BIN)/tsx bench/transfer.ts

bench-import: install ## A 33 KB zip whose manifest is 32 MiB of {} (dry run), and BENCH_IMPORT_PNGS (30) PNGs of 49 MP (dry run, apply): time, CPU, /healthz, RSS; run `make build` first
	$(BIN)/tsx bench/import-hostile.ts

bench-admin: install ## The admin's posts page of BENCH_ADMIN_POSTS (10000) posts in Chromium: navigation to first row, tab switch; run `make build` first
	$(BIN)/tsx bench/admin-tti.ts

clean: ## Remove the build output (dist/, build/); the data stays (see delete-data)
	rm -rf dist build

delete-data: ## Delete the embedded database under DATA_DIR (.data/), every post and user in it, after asking (CONFIRM=yes: without asking)
	@dir="$(or $(DATA_DIR),.data)"; \
	test -e "$$dir" || { echo "$$dir does not exist: nothing to delete"; exit 0; }; \
	test "$$(cd "$$dir" && pwd)" != / || { echo "DATA_DIR is /: refusing"; exit 2; }; \
	if [ "$(CONFIRM)" != yes ]; then \
	  printf 'Delete %s, the embedded database with every post and user in it? Type yes: ' "$$dir"; \
	  read -r answer || true; \
	  [ "$$answer" = yes ] || { echo; echo "kept $$dir"; exit 1; }; \
	fi; \
	rm -rf -- "$$dir" && echo "deleted $$dir"
