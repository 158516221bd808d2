"""tritonparse traces (meta-pytorch/tritonparse's NDJSON), read into sessions and written from them.

Read without tritonparse installed: the format is plain JSON lines, and reading it
here keeps irscope's own checks (data is data) on every field.
"""
