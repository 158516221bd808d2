"""The terminal UI (textual). The only part of irscope that imports textual."""
