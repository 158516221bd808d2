"""Storage: files irscope reads and writes (``files``) and a Variant's form on disk (``variants``)."""
