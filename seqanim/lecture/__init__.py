"""The lecture as the engine reads it: its parameters (`config`, `defaults`: lecture.toml), what its modules declare
(`declare`), what it is made of (`registry`: experiments, parts, scenes) and the data contract between
precompute/ and scenes/ (`contract`)."""
