"""The engine: `graph` plans the stages (their keys, reasons and the cache), `build` executes a plan on Dask
(`cluster`, `task`, `worker`) and publishes each stage's outputs atomically in the workspace."""
