"""Where things are: the brain's file names (`layout`), path keys through links and case folding, scopes and
their index, text bounds and inert text.

May import (pyproject's "Core's parts" contract, the bottom layer): the core's top-level modules (errors,
clock) only; no other part of the core."""
