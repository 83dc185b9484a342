"""`bsi gate request|approve|reject|pause|resume|abort|status`."""

from __future__ import annotations

import argparse

from brain_tui.cli.common import Context, add_command, one_line

TYPE_CHECKING = False  # the parser loads no core module: each handler imports what it uses (start-up)
if TYPE_CHECKING:
    from typing import Any

    from brain_tui.core.records.model import Claim

#: The verbs of `bsi gate`, one method of the core's `Gates` each (`_call`).
GATE_ACTIONS = ("request", "approve", "reject", "pause", "resume", "abort")

#: What each verb does, as `bsi gate --help` lists it.
GATE_HELP = {
    "request": "raise a human gate on a claim (it waits in waiting_human)",
    "approve": "approve a claim's gate",
    "reject": "reject a claim's gate (a reason is required)",
    "pause": "pause a claim and its live descendants (a human's brake)",
    "resume": "resume a claim and the descendants its pause held",
    "abort": "abort a claim and its whole tree (a reason is required)",
}


def register(sub: Any, parent: argparse.ArgumentParser) -> None:
    """Add the gate commands."""
    gate = sub.add_parser("gate", help="human gates, pause/resume, abort", parents=[parent])
    gsub = gate.add_subparsers(dest="gate_command", metavar="ACTION")
    for action in GATE_ACTIONS:
        p = add_command(gsub, parent, action, GATE_HELP[action], cmd_gate, "sess_id", gate_action=action)
        p.add_argument("message", nargs="?", default="", help="gate message or reason")
        p.add_argument("--by", help="who acts (default: git user, else $USER@host)")
        if action == "approve":
            p.add_argument("--tree", help="the tree `bsi gate show` reviewed: refused (12) if the scope moved since")
    add_command(gsub, parent, "show", "what a gate asks to approve: changed files, diff, tests, tree", cmd_show,
                "sess_id")
    add_command(gsub, parent, "status", "a claim and its subtree", cmd_status, "sess_id")


def _call(ctx: Context) -> Any:
    """The `Gates` call of `bsi gate ACTION`: an agent requests a gate on its own claim; the rest are a human's."""
    a, gates = ctx.args, ctx.brain.gates
    if a.gate_action == "request":
        return gates.request(a.sess_id, a.message)
    if a.gate_action == "approve":
        return gates.approve(a.sess_id, a.message, by=a.by, seen_tree=a.tree)
    if a.gate_action == "reject":
        return gates.reject(a.sess_id, a.message, by=a.by)
    if a.gate_action == "pause":
        return gates.pause(a.sess_id, a.message, by=a.by)
    if a.gate_action == "resume":
        return gates.resume(a.sess_id, a.message, by=a.by)
    return gates.abort(a.sess_id, a.message, by=a.by)


def cmd_gate(ctx: Context) -> int:
    """Run one gate action through the core."""
    from brain_tui.core.rules.gates import Cascade

    out = _call(ctx)
    text = f"{out.sess_id} {out.status}"
    if isinstance(out, Cascade) and out.touched:
        text += f" (cascade: {', '.join(out.touched)})"
    ctx.emit_claim(out.sess_id, out.as_dict(), text)
    return 0


def cmd_status(ctx: Context) -> int:
    """`bsi gate status ID`: the claim and its subtree."""
    from brain_tui.core.records.views import claim_json

    snapshot, claim, subtree = ctx.brain.gates.status(ctx.args.sess_id)
    if ctx.json:
        ctx.emit({"claim": claim_json(claim, snapshot),
                  "subtree": [claim_json(c, snapshot) for c in subtree]})
        return 0
    lines = [f"{claim.sess_id}  {claim.status}  {one_line(claim.scope_text, 40)}"]
    if claim.gate_history:
        last = claim.gate_history[-1]
        lines.append(f"  last gate event: {one_line(last.event or '?', 24)} by {one_line(last.by or '?', 40)}: "
                     f"{one_line(last.message, 60)}")
    children: dict[str, list[Claim]] = {}
    for child in subtree:
        children.setdefault(child.parent or "", []).append(child)
    lines += _tree_lines(children, claim.sess_id)
    ctx.emit(None, "\n".join(lines))
    return 0


def _tree_lines(children: dict[str, list[Claim]], top: str) -> list[str]:
    """The subtree depth first, each claim right under its own parent, siblings in the core's order; a claim
    whose parent the subtree does not hold still shows, one level under the top."""
    lines: list[str] = []
    pending = [(c, 1) for c in reversed(children.pop(top, []))]
    while pending or children:
        if not pending:
            pending = [(c, 1) for c in reversed([c for group in children.values() for c in group])]
            children.clear()
        child, depth = pending.pop()
        lines.append(f"{'  ' * depth}└ {child.sess_id}  {child.status}  {one_line(child.scope_text, 40)}")
        pending += [(c, depth + 1) for c in reversed(children.pop(child.sess_id, []))]
    return lines


def cmd_show(ctx: Context) -> int:
    """`bsi gate show ID [--json]`: the changed files, the bounded diff, the tests figures and the scope's tree."""
    from brain_tui.core.rules.gate_review import inert_diff_lines

    shown = ctx.brain.gates.show(ctx.args.sess_id)
    if ctx.json:
        ctx.emit(shown.as_dict())
        return 0
    lines = [f"{shown.sess_id}  {shown.status}  {one_line(shown.scope, 60)}"]
    if shown.message:
        lines.append(f"gate: {one_line(shown.message, 70)}")
    lines.append(f"tree: {shown.tree or '(not in git)'}"
                 + (f"  (approved: {shown.approved_tree})" if shown.approved_tree else ""))
    if shown.tests:
        lines.append("tests: " + ", ".join(f"{one_line(str(k), 20)} {one_line(str(v), 20)}"
                                            for k, v in shown.tests.items()))
    for sha, subject in shown.commits:
        lines.append(f"commit {sha[:12]} {one_line(subject, 60)}")
    lines.append(f"{len(shown.files)} changed file(s):")
    for f in shown.files:
        counts = f" +{f.added} -{f.deleted}" if f.added or f.deleted else ""
        where = "" if f.committed else " (uncommitted)"
        lines.append(f"  {f.how} {one_line(f.shown_path, 140)}{counts}{where}")
    if shown.diff:
        lines.append("")
        lines.extend(inert_diff_lines(shown.diff))
    if shown.truncated:
        lines.append("… (diff cut: too large to show whole)")
    ctx.emit(None, "\n".join(lines))
    return 0
