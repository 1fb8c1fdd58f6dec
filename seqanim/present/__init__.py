"""Presenting: the Qt presenter (`qt`) and the "what if?" variants kept at hand on a slide (`variants`)."""
