"""The production recipe (nginx + gunicorn); recipe.py starts it on loopback."""
