# irscope/__init__.py has already taken the working directory off sys.path (`python -m` put it first).
from .cli import run

run()
