"""The satellite tree: pilot → domain → leaf, with status icons, gate markers, TTLs and children counts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.content import Content
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from brain_tui.core.records.model import BrainSnapshot, Claim
from brain_tui.core.records.statuses import Status

from ..live import LiveMap, live_text
from ..present import claim_matches, level_name, short_id, status_icon, ttl_left
from ..safe import safe_text
from ..styles import ACCENT, ERROR, MUTED, STRONG, WARN, rich_text

Shape = tuple[tuple[str, str | None], ...]
#: The style Textual's Tree gives the expand/collapse icon (a click on it toggles the node).
TOGGLE_STYLE = Style.from_meta({"toggle": True})


def tree_roots(snapshot: BrainSnapshot) -> list[Claim]:
    """Claims shown as roots: trees (pilots, domains, any claim with satellites) that still have live work."""
    known = {c.sess_id for c in snapshot.claims}
    above = _with_live_work_below(snapshot)
    roots = []
    for claim in snapshot.claims:
        if claim.parent and claim.parent in known:
            continue
        is_tree = (bool(snapshot.children(claim.sess_id)) or claim.sess_id in snapshot.older_children
                   or claim.level in ("pilote", "domain"))
        if is_tree and (not claim.is_terminal or claim.sess_id in above):
            roots.append(claim)
    return roots


def _with_live_work_below(snapshot: BrainSnapshot) -> set[str]:
    """IDs with a live claim somewhere below them: one walk up from each live claim (not one walk down
    the whole tree per root: at 100,000 claims the recent finished ones made that a third of a refresh)."""
    parents: dict[str, set[str]] = {}
    for claim in snapshot.claims:
        if claim.parent:
            parents.setdefault(claim.sess_id, set()).add(claim.parent)
    marked: set[str] = set()
    stack = [claim.parent for claim in snapshot.claims if claim.parent and not claim.is_terminal]
    while stack:
        current = stack.pop()
        if current in marked:
            continue
        marked.add(current)
        stack.extend(parents.get(current, ()))
    return marked


#: The deepest a claim is drawn below its root: a deeper one (a hand-edited chain of parents) is drawn at this depth,
#: below the last ancestor drawn (Textual's tree builds its lines recursively; 40 levels already fill 120 columns).
MAX_DRAWN_DEPTH = 40


def _preorder(snapshot: BrainSnapshot, root: Claim) -> list[tuple[Claim, str | None]]:
    """`root` and every claim below it, each with the ID of the node it is drawn under, depth first in the
    children's order.

    A loop (not recursion), and claims deeper than `MAX_DRAWN_DEPTH` are drawn at that depth: a hand-edited chain
    of parents thousands deep is a list of rows, not a RecursionError. A cycle of parents is walked once.
    """
    order: list[tuple[Claim, str | None]] = []
    seen = {root.sess_id}
    stack: list[tuple[Claim, str | None, int]] = [(root, None, 0)]
    while stack:
        claim, drawn_under, depth = stack.pop()
        order.append((claim, drawn_under))
        children = [c for c in snapshot.children(claim.sess_id) if c.sess_id not in seen]
        seen.update(c.sess_id for c in children)
        below = (claim.sess_id, depth + 1) if depth < MAX_DRAWN_DEPTH else (drawn_under, depth)
        stack.extend((child, *below) for child in reversed(children))
    return order


def node_label(claim: Claim, snapshot: BrainSnapshot, inside: int = 0,
               live: LiveMap | None = None) -> Content:
    """One node: icon, short ID, level, gate marker, TTL left, children counts, and what waits below it."""
    label = status_icon(claim.status) + " "
    label = label.append(safe_text(short_id(claim.sess_id, snapshot.now, snapshot.tz), 40,
                                   style=STRONG if not claim.is_terminal else MUTED))
    label += " "
    label += safe_text(level_name(claim), 10, style=MUTED)
    if claim.status == Status.WAITING_HUMAN:
        label += Content.styled(" ⚑ gate", WARN)
    if claim.status == Status.PAUSED:
        label += Content.styled(" paused", ACCENT)
    if not claim.is_terminal:
        label += " "
        label += ttl_left(claim, snapshot.now)
    session = (live or {}).get(claim.sess_id)
    if session is not None:
        label += " "
        label += live_text(session, snapshot.now, short=True)
    children = snapshot.children(claim.sess_id)
    older, older_failed = snapshot.older_children.get(claim.sess_id, (0, 0))  # finished before the read's window
    if children or older:
        counts = Counter(c.status for c in children)
        # "ended" counts every finished child, the failed ones among them: "[2/3 ended · 1 failed]" is one closed
        # and one failed ("done" read as a second finished child beside the failed one).
        ended = sum(counts[s] for s in ("closed", "failed", "released")) + older
        failed = counts["failed"] + older_failed
        label += Content.styled(f" [{ended}/{len(children) + older} ended", MUTED)
        if failed:
            label += Content.styled(f" · {failed} failed", ERROR)
        label += Content.styled("]", MUTED)
    if inside:
        label += Content.styled(f" ⚑{inside} inside", WARN)
    return label


class SatelliteTree(Tree[str]):
    """The satellite trees of the brain; node data is the session ID."""

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False, id="tree-j"),
        Binding("k", "cursor_up", "Up", show=False, id="tree-k"),
        Binding("home", "scroll_home", "First", show=False, id="tree-home"),
        Binding("end", "scroll_end", "Last", show=False, id="tree-end"),
    ]

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__("brain", id=id)
        self.show_root = False
        self.auto_expand = False
        self.guide_depth = 3
        self._shape: Shape = ()
        self._collapsed: set[str] = set()
        self._claim_nodes: dict[str, TreeNode[str]] = {}
        #: (the node that vanished, the cursor line it was on) after a rebuild took the node under the cursor
        #: away: the cursor stayed on its line, now on another node (`take_slid`).
        self._slid: tuple[str, int] | None = None
        #: The node the cursor was on when a rebuild left the tree empty (a filter that matches nothing): the
        #: cursor comes back to it when a later rebuild shows it again, else to the first node.
        self._lost: str | None = None

    def process_label(self, label: str | Text | Content) -> Text | Content:  # type: ignore[override]
        """Keep a `Content` label as it is: `render_label` draws it in the current theme's colours."""
        if isinstance(label, Content):
            return label.split()[0] if "\n" in label.plain else label
        return super().process_label(label)

    def render_label(self, node: TreeNode[str], base_style: Style, style: Style) -> Text:
        """A node's line: its `Content` label with the theme's `$variables` resolved now (Tree draws Rich Text)."""
        label = node.label
        if not isinstance(label, Content):
            return super().render_label(node, base_style, style)
        text = rich_text(label, no_wrap=None, overflow=None)
        text.stylize(style)
        if node.allow_expand:
            prefix = (self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE, base_style + TOGGLE_STYLE)
        else:
            prefix = ("", base_style)
        line = Text.assemble(prefix, text)
        room = self._room(node)
        if room is not None and line.cell_len > room:
            line.truncate(max(1, room), overflow="ellipsis")  # Tree measures its lines with this: no sideways scroll
        return line

    def _room(self, node: TreeNode[str]) -> int | None:
        """Cells `node`'s toggle and label may take: the tree's width less the node's guides and the scrollbar's
        column while one shows (`watch_show_vertical_scrollbar` redraws the rows when it comes or goes); None
        before the tree has a size."""
        width = self.size.width - self.scrollbar_size_vertical
        return width - _depth(node) * self.guide_depth if width > 0 else None

    def watch_show_vertical_scrollbar(self) -> None:
        """The room of every row changed by the scrollbar's column: measure and draw the rows again."""
        self._invalidate()

    @property
    def selected_id(self) -> str | None:
        """The session ID under the cursor."""
        node = self.cursor_node
        return node.data if node is not None and node.data else None

    def on_focus(self) -> None:
        """Put the cursor on the first node when focus arrives with none selected."""
        if self.cursor_node is None and self._claim_nodes:
            self.cursor_line = 0

    def on_tree_node_collapsed(self, event: Tree.NodeCollapsed[str]) -> None:
        """Remember collapsed nodes across rebuilds."""
        if event.node.data:
            self._collapsed.add(event.node.data)

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[str]) -> None:
        """Forget an expanded node."""
        self._collapsed.discard(event.node.data or "")

    def update_tree(self, snapshot: BrainSnapshot, needle: str = "",
                    waiting: Mapping[str, int] | None = None, live: LiveMap | None = None) -> None:
        """Show the trees of `snapshot` filtered by `needle`; labels change in place when the shape is unchanged. A
        node shows how many attention items wait at or below it (`waiting`: so a collapsed node still tells) and
        its agent's state (`live`)."""
        counts = waiting or {}
        order: list[tuple[Claim, str | None]] = []

        for root in tree_roots(snapshot):
            order.extend(_preorder(snapshot, root))
        if needle:
            keep = _matching_branches(order, lambda c: claim_matches(c, needle))
            order = [(c, p) for c, p in order if c.sess_id in keep]
        shape: Shape = tuple((c.sess_id, p) for c, p in order)
        labels = {}
        for c, _ in order:
            own = counts.get(c.sess_id, 0) - sum(counts.get(k.sess_id, 0) for k in snapshot.children(c.sess_id))
            labels[c.sess_id] = node_label(c, snapshot, inside=counts.get(c.sess_id, 0) - own,
                                          live=live)
        if shape == self._shape:
            for sess_id, label in labels.items():
                node = self._claim_nodes.get(sess_id)
                if node is not None and not _same_label(node.label, label):
                    node.set_label(label)  # type: ignore[arg-type]  # Content: see process_label
            return
        keep_cursor = self.selected_id or self._lost
        self.clear()
        self._claim_nodes = {}
        for sess_id, parent in shape:
            parent_node = self._claim_nodes.get(parent) if parent else self.root
            if parent_node is None:
                continue
            node = parent_node.add(labels[sess_id], data=sess_id, expand=sess_id not in self._collapsed)  # type: ignore[arg-type]
            self._claim_nodes[sess_id] = node
        for node in self._claim_nodes.values():
            if not node.children:
                node.allow_expand = False
        self._shape = shape
        self._lost = keep_cursor if keep_cursor and not self._claim_nodes else None
        if keep_cursor and keep_cursor in self._claim_nodes:
            target = self._claim_nodes[keep_cursor]
            self.call_after_refresh(self.move_cursor, target)
        elif keep_cursor and self.cursor_line >= 0:
            self._slid = (keep_cursor, self.cursor_line)
        elif keep_cursor and self._claim_nodes:
            self.call_after_refresh(self._first_node)  # the node it was on is gone: the first one

    def select_id(self, sess_id: str) -> None:
        """Move the cursor to `sess_id`'s node, once the tree has drawn what it was just given (a rebuild
        places its cursor then too); nothing when the node is not shown."""
        def select() -> None:
            node = self._claim_nodes.get(sess_id)
            if node is not None:
                self.move_cursor(node)

        self.call_after_refresh(select)

    def _first_node(self, *, anywhere: bool = False) -> None:
        if (anywhere or self.cursor_node is None) and self._claim_nodes:
            self.cursor_line = 0

    def take_slid(self, *, to_first: bool = False) -> tuple[str, str] | None:
        """Once: (vanished session ID, session ID under the cursor) after a rebuild removed the node under the
        cursor, while the cursor is still on that line (a pilot who moved it chose a node); else None.
        `to_first`: the pilot's own filter removed it, the cursor goes to the first node shown."""
        slid, self._slid = self._slid, None
        if to_first and slid is not None:
            self.call_after_refresh(self._first_node, anywhere=True)
        now = self.selected_id
        if slid is None or now is None or now == slid[0] or self.cursor_line != slid[1]:
            return None
        return slid[0], now

    @property
    def widest(self) -> int:
        """Cells the widest shown line needs whole (guides, toggle and label), from the labels as they are now.

        Not Tree's own measure (`virtual_size`): a label changed in place (`set_label`: a pause, a TTL tick) does
        not rebuild it, and it measures the rows as drawn, already cut to the pane this width decides.
        """
        widest = 0
        stack = [(node, 0) for node in self.root.children]
        while stack:
            node, depth = stack.pop()
            toggle = cell_len(self.ICON_NODE_EXPANDED) if node.allow_expand else 0
            label = node.label
            width = label.cell_length if isinstance(label, Content) else cell_len(str(label))
            widest = max(widest, depth * self.guide_depth + toggle + width)
            if node.is_expanded:
                stack.extend((child, depth + 1) for child in node.children)
        return widest

    @property
    def node_ids(self) -> list[str]:
        """Session IDs shown, in tree order."""
        return [sess_id for sess_id, _ in self._shape]


def _depth(node: TreeNode[str]) -> int:
    """How deep `node` is drawn: 0 for a root of the brain's trees (the tree's own root is not shown)."""
    depth, parent = 0, node.parent
    while parent is not None and parent.parent is not None:
        depth, parent = depth + 1, parent.parent
    return depth


def _same_label(shown: object, label: Content) -> bool:
    """True when a node already shows `label` (text and styles: `==` on Content compares the text only)."""
    return isinstance(shown, Content) and shown.is_same(label)


def _matching_branches(order: list[tuple[Claim, str | None]], match: Callable[[Claim], bool]) -> set[str]:
    """IDs of matching nodes and their ancestors (so a match keeps its path to the root)."""
    parent_of = {c.sess_id: p for c, p in order}
    keep: set[str] = set()
    for claim, _ in order:
        if match(claim):
            current: str | None = claim.sess_id
            while current and current not in keep:
                keep.add(current)
                current = parent_of.get(current)
    return keep
