"""One module per experiment. Each defines `run(params, **upstream) -> (arrays, metrics)`."""
