"""The ex commands an editor runs from its command line (vim's ``-c CMD``, ``--cmd CMD``, ``+CMD``), read for what
they write, for the shell's reader (`shell_vim`).

Each command is read as vim reads it: a range (``%``, ``1,$``, ``'<,'>``, ``/RE/``), command modifiers
(``silent!``, ``keepalt``, ``noautocmd``, ``5verbose``, ``windo``, ``g/RE/``…), then the command by any of its
abbreviations, ``|`` ending it. The writes: ``w[rite][!] [++opt] [>>] FILE`` (``w!FILE``), ``wq``, ``x[it]``,
``exi[t]``, ``up[date]``, ``sav[eas]``, ``wn``/``wN``/``wp``; ``redir[!] >[>] FILE``; ``mks[ession]``,
``mkvie[w]``, ``mkv[imrc]``, ``mk[exrc]`` (``Session.vim``, ``.vimrc``, ``.exrc`` by default); ``wv[iminfo]``,
``wsh[ada]``, ``wu[ndo]``, ``helpt[ags] DIR`` (``DIR/tags``), ``prof[ile] start FILE``. A write with no file
(``w``, ``wa``, ``x!``) writes the buffers: the files opened. The shell commands ``!CMD``, ``r !CMD``, ``w !CMD``
are handed back to be read as shell. What cannot be read from the text (``exe`` of an expression, a function call,
``source``, an autocommand, an embedded language, ``s/…/\\=…/``) makes the line unreadable.

Standard library only: the hook's fast path reads shell commands with it.
"""

from __future__ import annotations

import re

from brain_tui.core.lazy_re import LazyPattern

__all__ = ["ExCommands", "read_ex"]


def _names(specs: str) -> dict[str, tuple[str, int]]:
    """`sil[ent]` -> {"silent": ("silent", 3)}: each name with the shortest abbreviation vim takes for it."""
    table = {}
    for spec in specs.split():
        short, _bracket, rest = spec.partition("[")
        full = short + rest.rstrip("]")
        table[full] = (full, len(short))
    return table


#: Command modifiers and the commands running the rest of the text on each window, buffer, argument, line.
_MODIFIERS = _names("sil[ent] uns[ilent] keepa[lt] keepm[arks] keepj[umps] keepp[atterns] loc[kmarks] noa[utocmd] "
                    "nos[wapfile] verb[ose] conf[irm] bro[wse] hid[e] vert[ical] hor[izontal] lefta[bove] "
                    "abo[veleft] rightb[elow] bel[owright] to[pleft] bo[tright] tab leg[acy] vim9[cmd] san[dbox] "
                    "windo bufdo argdo tabdo cdo ldo cfdo lfdo")
#: The commands writing the file they name, or the current buffer with none.
_WRITES = _names("w[rite] wq x[it] exi[t] up[date] sav[eas] wn[ext] wN[ext] wp[revious]")
_WRITE_ALL = _names("wa[ll] wqa[ll] xa[ll]")
#: The commands writing the file they name, and the one they write when they name none ("" none here).
_MAKES = {**{name: (spec, "Session.vim") for name, spec in _names("mks[ession]").items()},
          **{name: (spec, "") for name, spec in _names("mkvie[w] wv[iminfo] wsh[ada] wu[ndo]").items()},
          **{name: (spec, ".vimrc") for name, spec in _names("mkv[imrc]").items()},
          **{name: (spec, ".exrc") for name, spec in _names("mk[exrc]").items()}}
_OPENS = _names("e[dit] f[ile] sp[lit] vs[plit] new vne[w] tabe[dit] tabnew bad[d] arga[dd] n[ext] vie[w] sv[iew]")
_QUITS = _names("q[uit] qa[ll] quita[ll] cq[uit]")
#: Commands that change no buffer and write no file (a plain `q` after them quits).
_LOOKS = _names("p[rint] P[rint] l[ist] nu[mber] z se[t] setl[ocal] setg[lobal] ec[ho] echom[sg] ls files "
                "buffers ar[gs] marks reg[isters] di[splay] ju[mps] ve[rsion] filet[ype] sy[ntax] noh[lsearch] "
                "redi[r]")
#: Commands running what the text does not spell: a script file, a function, an expression, another language.
_UNREADABLE = _names("cal[l] ev[al] so[urce] ru[ntime] au[tocmd] com[mand] fu[nction] def py[thon] py3 pyx "
                     "python3 pythonx pydo py3do pyxdo pyf[ile] py3f[ile] pyxf[ile] lua luado luafile pe[rl] "
                     "perld[o] rub[y] rubyd[o] rubyf[ile] tc[l] tcld[o] tclf[ile] mz[scheme] mzf[ile] deb[ug]")
#: Commands evaluating an expression: unreadable when it calls a function (`echo writefile(…)`).
_EXPRESSIONS = _names("let cons[t] unl[et] if el[seif] wh[ile] for retu[rn] th[row] echon echoe[rr] echow[indow] "
                      "cex[pr] lex[pr] cadde[xpr] ladde[xpr] cgete[xpr] lgete[xpr] pu[t]")
_SUBSTITUTES = _names("s[ubstitute] sno[magic] sm[agic] & && ~")
_GLOBAL = _names("g[lobal] v[global]")
_FILTER = _names("filt[er]")
_EXECUTE = _names("exe[cute]")
_NORMAL = _names("norm[al]")
_ECHOES = _names("ec[ho] echom[sg]")
_WRITE = _names("w[rite]")
_READ = _names("r[ead]")
_REDIR = _names("redi[r]")
_HELPTAGS = _names("helpt[ags]")
_PROFILE = _names("prof[ile]")
_ENDING = _names("wq x[it] exi[t] wqa[ll] xa[ll]")
_MAKE_NAMES = {full: spec for full, (spec, _default) in _MAKES.items()}
_RANGE = LazyPattern(r"(?:[\s:\d.$%,;+\-]|'.|/(?:\\.|[^/\\])*+/?|\?(?:\\.|[^?\\])*+\??|\\[/?&])*+")
_NAME = LazyPattern(r"[A-Za-z][A-Za-z0-9]*+|&&|[!&~<>=#@*]")
_LITERAL = LazyPattern(r"\s*+(?:\"((?:\\.|[^\"\\])*+)\"|'((?:''|[^'])*+)')\s*+(?:\.\.?+)?")
#: A write's arguments: `[++opt]…`, `>>`, then a file (a blank escaped with `\` is in its name; `"` begins a comment).
_WRITE_ARGS = LazyPattern(r"\s*+(?:\+\+\w++(?:=\S*+)?\s*+)*+(>>)?\s*+((?:\\.|[^\s\\\"])*+)")
_MAX_DEPTH = 8


def _lookup(name: str, *tables: dict[str, tuple[str, int]]) -> str:
    """The full name of the command `name` abbreviates in one of `tables`, "" if none."""
    for table in tables:
        for full, shortest in table.values():
            if len(name) >= shortest and full.startswith(name):
                return full
    return ""


class ExCommands:
    """What an editor's command-line commands do: the files they write (`writes`), the shell commands they run
    (`shells`), the files they open (`opened`), whether they write the buffers opened (`current`: "" no, "write",
    "forced" with `!`, which writes a read-only one too), whether they end the editor without writing them
    (`ends`), and why they cannot be read whole (`unreadable`, "" when they can)."""

    __slots__ = ("writes", "shells", "opened", "current", "ends", "unreadable", "_changed")

    def __init__(self) -> None:
        self.writes: list[str] = []
        self.shells: list[str] = []
        self.opened: list[str] = []
        self.current = ""
        self.ends = False
        self.unreadable = ""
        self._changed = False  # a command before a plain `q` may have changed a buffer (then `q` fails)

    def _write_current(self, forced: bool) -> None:
        self.current = "forced" if forced or self.current == "forced" else "write"


def read_ex(commands: list[str]) -> ExCommands:
    """Read `commands` (each a `-c` argument: ex commands separated by `|`) for what they write and run."""
    found = ExCommands()
    for command in commands:
        _read(command, found, 0)
    return found


def _bar(text: str, quoted: bool) -> int:
    """Where the command at the start of `text` ends: its first `|` (not escaped; not in a string when `quoted`)."""
    index, quote = 0, ""
    while index < len(text):
        ch = text[index]
        if ch == "\\" and quote != "'":
            index += 2
            continue
        if quoted and (ch == quote or (not quote and ch in "\"'")):
            quote = "" if quote else ch
        elif ch == "|" and not quote:
            return index
        index += 1
    return len(text)


def _read(text: str, found: ExCommands, depth: int) -> None:
    while text and not found.unreadable:
        if depth > _MAX_DEPTH:
            found.unreadable = "commands nested too deep"
            return
        text = text[_RANGE.match(text).end():]  # type: ignore[union-attr]  # (it matches "" at least)
        match = _NAME.match(text)
        if not match:
            if text.startswith("|"):
                text = text[1:]
                continue
            return  # an empty command (a line number, `+/RE`), or a comment
        name, text = match.group(), text[match.end():]
        bang = text.startswith("!") and name != "!"
        text = text[1:] if bang else text
        if name == "!":  # `:!CMD`, `:%!CMD` (a filter): the rest of the text is a shell command
            found.shells.append(text)
            found._changed = True
            return
        if _lookup(name, _MODIFIERS):
            continue
        if _lookup(name, _GLOBAL) and text[:1] and not text[:1].isalnum() and text[:1] not in \
                " \"|":  # `g/RE/CMD`: CMD on each line matching
            pattern = re.match(rf"{re.escape(text[0])}(?:\\.|[^\\{re.escape(text[0])}])*+{re.escape(text[0])}?", text)
            text = text[pattern.end() if pattern else 1:]
            continue
        if _lookup(name, _FILTER):  # `filter[!] {pat} CMD`
            text = re.sub(r"^\s*+(?:/(?:\\.|[^/\\])*+/|\S+)", "", text, count=1)
            continue
        if _lookup(name, _EXECUTE):
            end = _bar(text, quoted=True)
            _execute(text[:end], found, depth)
            text = text[end + 1:]
            continue
        if _lookup(name, _UNREADABLE) or (_lookup(name, _NORMAL) and re.search(r"[\r\n]", text)):
            found.unreadable = f"`{name}` runs what the line does not spell"
            return
        if _lookup(name, _NORMAL):  # its keys to the text's end (a `|` is one of them)
            found._changed = True
            return
        end = _bar(text, quoted=bool(_lookup(name, _EXPRESSIONS, _ECHOES)))
        argument, text = text[:end], text[end + 1:]
        if (_lookup(name, _EXPRESSIONS, _LOOKS) and re.search(r"\w\s*\(", argument)) or \
                (_lookup(name, _SUBSTITUTES) and "\\=" in argument):
            found.unreadable = f"`{name}` evaluates an expression"
            return
        _command(name, bang, argument, found)


def _execute(argument: str, found: ExCommands, depth: int) -> None:
    """`exe "CMD" 'CMD'…`: strings spelled out are read as the command they join to; anything else is unread."""
    parts, pos = [], 0
    while pos < len(argument.rstrip()):
        literal = _LITERAL.match(argument, pos)
        if not literal or literal.end() == pos:
            found.unreadable = "`execute` runs an expression"
            return
        double, single = literal.group(1), literal.group(2)
        parts.append(re.sub(r"\\(.)", r"\1", double) if double is not None else (single or "").replace("''", "'"))
        pos = literal.end()
    _read(" ".join(parts), found, depth + 1)


def _command(name: str, bang: bool, argument: str, found: ExCommands) -> None:
    """Read one command `name[!] ARGUMENT` (modifiers and range read already)."""
    if _lookup(name, _WRITES) or _lookup(name, _WRITE_ALL):
        if _lookup(name, _WRITE) and argument.lstrip().startswith("!") and argument[:1].isspace():
            found.shells.append(argument.lstrip()[1:])  # `w !CMD`: the buffer piped to CMD
            return
        written = _WRITE_ARGS.match(argument)
        path = re.sub(r"\\(.)", r"\1", written.group(2)) if written else ""
        if path and not _lookup(name, _WRITE_ALL):
            found.writes.append(path)
        else:
            found._write_current(bang)
        if _lookup(name, _ENDING):
            found.ends = True
        return
    if _lookup(name, _READ) and argument.lstrip().startswith("!"):
        found.shells.append(argument.lstrip()[1:])
        found._changed = True
        return
    if _lookup(name, _REDIR):
        target = re.match(r"\s*+>>?\s*+((?:\\.|[^\s\\\"])+)", argument)
        if target:
            found.writes.append(re.sub(r"\\(.)", r"\1", target.group(1)))
        return
    full = _lookup(name, _MAKE_NAMES)
    if full:
        default = _MAKES[full][1]
        path = argument.strip()
        path = "" if full == "mkview" and re.fullmatch(r"[1-9]?", path) else path  # `mkview 1`: in 'viewdir'
        if path or default:
            found.writes.append(re.sub(r"\\(.)", r"\1", path) if path else default)
        return
    if _lookup(name, _HELPTAGS) and argument.strip():
        found.writes.append(argument.split()[-1].rstrip("/") + "/tags")
        return
    if _lookup(name, _PROFILE) and argument.split()[:1] == ["start"] and len(argument.split()) > 1:
        found.writes.append(argument.split(None, 1)[1].strip())
        return
    if _lookup(name, _OPENS) and argument.strip() and not argument.strip().startswith("+"):
        found.opened.append(re.sub(r"\\(.)", r"\1", argument.strip()))
        return
    if _lookup(name, _QUITS):
        found.ends = found.ends or bang or name.startswith("cq") or not found._changed
        return
    if not _lookup(name, _LOOKS):
        found._changed = True
