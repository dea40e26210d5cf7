"""Language instructions of the SIMPLER tasks (SIMPLER_SPEC.md §1.3, §1.4).

The object name in an instruction comes from its model id: split on "_", drop the
tokens {opened, light, generated, modified, objaverse, bridge, baked, v2} and every
token ending in "cm", join the rest with spaces ("baked_opened_pepsi_can_v2" ->
"pepsi can", "green_cube_3cm" -> "green cube").
"""

from __future__ import annotations

_DROPPED_TOKENS = frozenset({"opened", "light", "generated", "modified", "objaverse", "bridge", "baked", "v2"})

DRAWERS = ("top", "middle", "bottom")


def object_name(model_id: str) -> str:
    """The name an instruction uses for `model_id`."""
    kept = [t for t in model_id.split("_") if t not in _DROPPED_TOKENS and not t.endswith("cm")]
    return " ".join(kept)


def pick(model_id: str) -> str:
    return f"pick {object_name(model_id)}"


def move_near(source_id: str, target_id: str) -> str:
    return f"move {object_name(source_id)} near {object_name(target_id)}"


def drawer(action: str, drawer_index: int) -> str:
    if action not in ("open", "close"):
        raise ValueError(f"drawer action {action!r}; allowed: ['open', 'close']")
    return f"{action} {DRAWERS[drawer_index]} drawer"


def place_in_drawer(model_id: str, drawer_index: int) -> tuple[str, str]:
    """The two subtask instructions: open the drawer, then place the object into it."""
    return (drawer("open", drawer_index), f"place {object_name(model_id)} into {DRAWERS[drawer_index]} drawer")


# The Bridge tasks' instructions are fixed strings, not built from model ids.
BRIDGE = {
    "widowx_spoon_on_towel": "put the spoon on the towel",
    "widowx_carrot_on_plate": "put carrot on plate",
    "widowx_stack_cube": "stack the green block on the yellow block",
    "widowx_put_eggplant_in_basket": "put eggplant into yellow basket",
}
