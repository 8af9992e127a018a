# Shared set-up for scripts/start and scripts/test: sourced, not run.
# Installs what a fresh machine lacks, from the package registries only, with visible progress.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

step() { printf '\n==> %s\n' "$*" >&2; }

if ! command -v uv >/dev/null 2>&1; then
    step "Installing uv (from PyPI)"
    python3 -m pip install --user uv || python3 -m pip install --user --break-system-packages uv
    export PATH="$HOME/.local/bin:$PATH"
fi

step "Installing the Copilot runtime, Chart.js, Swagger UI and axe-core (npm, pinned in package-lock.json)"
# npm keeps its own copy of the lock file it installed from: a newer package-lock.json (a package
# added or moved) installs again.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund
else
    echo "already installed" >&2
fi
