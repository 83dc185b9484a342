"""Where the shell runs the commands of a line after a folder change (`cd`, `pushd`, `popd`, `eval`, functions)."""
