"""The Textual application: the only package that imports textual."""
