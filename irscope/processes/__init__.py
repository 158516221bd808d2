"""The processes irscope starts and the jobs it hands them.

``own_python`` starts every Python process irscope runs for itself (never importing from the
working directory); ``workers`` keeps pools of compile and GPU workers talking pickles over
pipes; ``resident`` keeps a parent with torch imported that GPU workers fork from between
commands; ``executors`` says where jobs run (this host's workers, or a Ray cluster); ``timeline``
logs where a command's time goes across all of them. Nothing here knows what a job computes.
"""
