"""Readers that turn files on disk into model.Trace objects; they never write to inputs."""
