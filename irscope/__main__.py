from .processes.own_python import drop_working_directory

drop_working_directory()  # `python -m` put it first: a pickle.py there must not run inside irscope

from .cli import run  # noqa: E402 (only once the working directory is off sys.path)

run()
