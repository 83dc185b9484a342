"""A command's options as its program reads them, for the shell's reader (`shell_targets`): SPEC 21.3.

`options` splits a command's arguments into operands, option values and flags, getopt's way (a cluster ``-rt DIR``,
``-iSUFFIX``, ``--name=VALUE`` or ``--name VALUE``, everything after ``--`` an operand). The GNU programs (getopt_long,
argp) take any unique prefix of a long option as that option: ``cp --target=claims x`` is ``cp --target-directory
claims x``, ``sed --in-pl`` is ``sed --in-place``. `spelled_out` writes such a prefix out in full for the programs of
`LONG_OPTIONS` (each one's whole list: a prefix of one option there is that option; one of several, the program
refuses), so every rule after it reads one spelling of each option.

Standard library only: the hook's fast path imports this module.
"""

from __future__ import annotations

__all__ = ["LONG_OPTIONS", "OPTIONAL", "STREAMS", "in_bundle", "long_name", "options", "spelled_out"]

TYPE_CHECKING = False  # not `typing`: the hook path imports only what it needs
if TYPE_CHECKING:
    from collections.abc import Container

#: Written after an option of `options`' `with_value` (``"-S?"``, ``"--gpg-sign?"``): the option takes a value only
#: attached to it (``-SKEY``, ``--gpg-sign=KEY``: git's ``-S[<keyid>]``, ``--gpg-sign[=<keyid>]``); given alone it is
#: a flag, and the next word is not its value.
OPTIONAL = "?"
#: The values of an option naming a file written that name none: a standard stream or the null device (every
#: program's `-o -`, `--log-file /dev/stderr`; a sed script's `w FILE` knows only the two `/dev/std*`).
STREAMS = frozenset({"-", "/dev/stdout", "/dev/stderr", "/dev/null"})


def _table(text: str) -> frozenset[str]:
    return frozenset(f"--{name}" for name in text.split())


_TAR = _table(
    "absolute-names acls add-file after-date anchored append atime-preserve auto-compress backup block-number "
    "blocking-factor bzip2 catenate check-device check-links checkpoint checkpoint-action clamp-mtime compare "
    "compress concatenate confirmation create delay-directory-restore delete dereference diff directory exclude "
    "exclude-backups exclude-caches exclude-caches-all exclude-caches-under exclude-from exclude-ignore "
    "exclude-ignore-recursive exclude-tag exclude-tag-all exclude-tag-under exclude-vcs exclude-vcs-ignores extract "
    "file files-from force-local format full-time get group group-map gunzip gzip hard-dereference help "
    "hole-detection ignore-case ignore-command-error ignore-failed-read ignore-zeros incremental index-file "
    "info-script interactive keep-directory-symlink keep-newer-files keep-old-files label level list "
    "listed-incremental lzip lzma lzop mode mtime multi-volume new-volume-script newer newer-mtime no-acls "
    "no-anchored no-auto-compress no-check-device no-delay-directory-restore no-ignore-case no-ignore-command-error "
    "no-null no-overwrite-dir no-quote-chars no-recursion no-same-owner no-same-permissions no-seek no-selinux "
    "no-unquote no-verbatim-files-from no-wildcards no-wildcards-match-slash no-xattrs null numeric-owner occurrence "
    "old-archive one-file-system one-top-level overwrite overwrite-dir owner owner-map pax-option portability posix "
    "preserve-order preserve-permissions quote-chars quoting-style read-full-records record-size recursion "
    "recursive-unlink remove-files restrict rmt-command rsh-command same-order same-owner same-permissions seek "
    "selinux show-defaults show-omitted-dirs show-snapshot-field-ranges show-stored-names show-transformed-names "
    "skip-old-files sort sparse sparse-version starting-file strip-components suffix tape-length test-label "
    "to-command to-stdout totals touch transform uncompress ungzip unlink-first unquote update usage "
    "use-compress-program utc verbatim-files-from verbose verify version volno-file warning wildcards "
    "wildcards-match-slash xattrs xattrs-exclude xattrs-include xform xz zstd")
_GZIP = _table("best decompress fast force help keep license list name no-name quiet recursive rsyncable stdout suffix "
               "synchronous test to-stdout uncompress verbose version")
_GAWK = _table("assign bignum characters-as-bytes copyright csv debug dump-variables exec field-separator file gen-pot "
               "help include lint lint-old load no-optimize non-decimal-data optimize persist posix pretty-print "
               "profile re-interval sandbox source trace traditional use-lc-numeric version")
_OWNERS = "changes dereference help no-dereference no-preserve-root preserve-root quiet recursive reference silent " \
          "verbose version"
#: The programs the reader reads whose long options it writes out in full, each with its whole list (as its `--help`
#: gives it), or a part holding every option whose name begins one in the part: a list missing such an option would
#: take that option's own name for a prefix of the longer one. (A prefix of one listed option and of one left out
#: is ambiguous: the program refuses it, whatever it is read as.)
LONG_OPTIONS: dict[str, frozenset[str]] = {
    "cp": _table("archive attributes-only backup context copy-contents debug dereference force help interactive link "
                 "no-clobber no-dereference no-preserve no-target-directory one-file-system parents preserve "
                 "recursive reflink remove-destination sparse strip-trailing-slashes suffix symbolic-link "
                 "target-directory update verbose version keep-directory-symlink"),
    "mv": _table("backup context debug exchange force help interactive no-clobber no-copy no-target-directory "
                 "strip-trailing-slashes suffix target-directory update verbose version"),
    "install": _table("backup compare context debug directory group help mode no-target-directory owner "
                      "preserve-context preserve-timestamps strip strip-program suffix target-directory verbose "
                      "version"),
    "ln": _table("backup directory force help interactive logical no-dereference no-target-directory physical "
                 "relative suffix symbolic target-directory verbose version"),
    "rm": _table("dir force help interactive no-preserve-root one-file-system preserve-root recursive verbose version"),
    "unlink": _table("help version"),
    "shred": _table("exact force help iterations random-source remove size verbose version zero"),
    "touch": _table("date help no-create no-dereference reference time version"),
    "mkdir": _table("context help mode parents verbose version"),
    "rmdir": _table("help ignore-fail-on-non-empty parents verbose version"),
    "truncate": _table("help io-blocks no-create reference size version"),
    "tee": _table("append help ignore-interrupts output-error version"),
    "sed": _table("debug expression file follow-symlinks help in-place line-length null-data posix quiet "
                  "regexp-extended sandbox separate silent unbuffered version zero-terminated binary"),
    "tar": _TAR, "gtar": _TAR,
    "chmod": _table("changes help no-preserve-root preserve-root quiet recursive reference silent verbose version"),
    "chown": _table(_OWNERS + " from"), "chgrp": _table(_OWNERS),
    "sort": _table("batch-size buffer-size check compress-program debug dictionary-order field-separator files0-from "
                   "general-numeric-sort help human-numeric-sort ignore-case ignore-leading-blanks ignore-nonprinting "
                   "key merge month-sort numeric-sort output parallel random-sort random-source reverse sort stable "
                   "temporary-directory unique version version-sort zero-terminated"),
    "gzip": _GZIP, "gunzip": _GZIP,
    "gawk": _GAWK, "awk": _GAWK,  # (an awk without long options refuses them: read as gawk's, nothing is missed)
    "cpio": _table("absolute-filenames append block-size create dereference device-independent directory dot extract "
                   "file force-local format help ignore-devno io-size link list make-directories message "
                   "no-absolute-filenames no-preserve-owner nonmatching null numeric-uid-gid only-verify-crc owner "
                   "pass-through pattern-file preserve-modification-time quiet rename rename-batch-file "
                   "renumber-inodes reproducible reset-access-time rsh-command sparse swap swap-bytes swap-halfwords "
                   "to-stdout unconditional usage verbose version warning"),
    "zip": _table("DOS-names adjust-sfx archive-comment before-date compress-1 compress-2 compress-3 compress-4 "
                  "compress-5 compress-6 compress-7 compress-8 compress-9 compression-method copy-entries delete "
                  "difference-archive display-bytes display-counts display-dots display-globaldots display-usize "
                  "display-volume dot-size encrypt entry-comments exclude fifo filesync fix fixfix force-descriptors "
                  "force-zip64 freshen from-crlf from-date grow help include junk-paths junk-sfx latest-time license "
                  "log-append log-info logfile-path more-help move must-match names-stdin no-dir-entries no-wild "
                  "output-file password paths quiet recurse-paths recurse-patterns regex show-command show-debug "
                  "show-files show-just-unicode show-options show-unicode split-bell split-pause split-size "
                  "split-verbose store strip-extra suffixes symlinks temp-path test to-crlf unicode unzip-command "
                  "update verbose version wild-stop-dirs"),
    "mktemp": _table("directory dry-run help quiet suffix tmpdir version"),
    "csplit": _table("digits elide-empty-files help keep-files prefix quiet silent suffix-format suppress-matched "
                     "version"),
    "split": _table("additional-suffix bytes elide-empty-files filter help hex-suffixes line-bytes lines number "
                    "numeric-suffixes separator suffix-length unbuffered verbose version"),
    "uniq": _table("all-repeated check-chars count group help ignore-case repeated skip-chars skip-fields unique "
                   "version zero-terminated"),
    "mkfifo": _table("context help mode version"), "mknod": _table("context help mode version"),
    "iconv": _table("from-code help list output silent to-code usage verbose version"),
    # a part of a long list, safe as such: the options `shell_outputs` reads, and each option whose name begins one
    "curl": _table("alt-svc cacert cert config connect-timeout cookie cookie-jar data data-binary data-raw "
                   "data-urlencode dump-header etag-save form head header hsts key libcurl max-time output output-dir "
                   "proxy range referer remote-header-name remote-name remote-name-all request resolve retry stderr "
                   "time-cond trace trace-ascii upload-file user user-agent write-out"),
    "wget": _table("accept append-output directory-prefix execute header input-file level output-document "
                   "output-file password reject rejected-log save-cookies timeout tries user user-agent wait "
                   "warc-cdx warc-file"),
    "gpg": _table("armor armour attribute-file clear-sign clearsign dearmor dearmour decrypt decrypt-files "
                  "default-key default-keyserver-url detach-sign encrypt encrypt-files enarmor enarmour homedir "
                  "keyring local-user log-file logger-file output passphrase passphrase-file pinentry-mode "
                  "primary-keyring recipient recipient-file sign status-file store symmetric trustdb-name "
                  "passphrase-fd compress-level cipher-algo digest-algo compress-algo s2k-cipher-algo s2k-digest-algo "
                  "comment trust-model keyserver command-fd status-fd logger-fd"),
    # the programs that run a command: their options end at their first operand, each read by `long_name`
    "env": _table("block-signal chdir debug default-signal help ignore-environment ignore-signal "
                  "list-signal-handling null split-string unset version"),
    "nice": _table("adjustment help version"),
    "timeout": _table("foreground help kill-after preserve-status signal verbose version"),
    "stdbuf": _table("error help input output version"),
    "ionice": _table("class classdata help ignore pgid pid uid version"),
    "flock": _table("close command conflict-exit-code exclusive help no-fork nonblock shared timeout unlock verbose "
                    "version wait"),
    "su": _table("command fast group help login preserve-environment pty session-command shell supp-group version "
                 "whitelist-environment"),
    "runuser": _table("command fast group help login preserve-environment pty session-command shell supp-group user "
                      "version whitelist-environment"),
    "setsid": _table("ctty fork help version wait"), "taskset": _table("all-tasks cpu-list help pid version"),
    "chrt": _table("all-tasks batch deadline fifo help idle max other pid reset-on-fork rr sched-deadline "
                   "sched-period sched-runtime verbose version"),
    "time": _table("append format help output portability quiet verbose version"),
    "sudo": _table("askpass background bell chdir chroot close-from command-timeout edit group help host list login "
                   "login-class non-interactive other-user preserve-env preserve-groups prompt remove-timeout "
                   "reset-timestamp role set-home shell stdin type user validate version"),
    "strace": _table(
        "abbrev absolute-timestamps attach columns const-print-style daemonize debug decode-fds decode-pids detach-on "
        "env failed-only fault follow-forks help inject instruction-pointer interruptible kvm no-abbrev output "
        "output-append-mode output-separately quiet raw read relative-timestamps seccomp-bpf signal stack-traces "
        "status string-limit strings-in-hex successful-only summary summary-columns summary-only summary-sort-by "
        "summary-syscall-overhead summary-wall-clock syscall-number syscall-times tips trace trace-path user verbose "
        "version write"),
    "fakeroot": _table("faked fd-base help lib unknown-is-real version"),
    "xargs": _table("arg-file delimiter eof exit help interactive max-args max-chars max-lines max-procs "
                    "no-run-if-empty null open-tty process-slot-var replace show-limits verbose version"),
}
#: Options of `LONG_OPTIONS` that are other names of one option, and that option's name: a prefix of several names
#: of one option is no ambiguity (getopt_long's rule, gpg's: ``gpg --clear`` is ``--clear-sign``), and each is read
#: under that one name.
_SAME: dict[str, dict[str, str]] = {
    "gpg": {"--clearsign": "--clear-sign", "--armour": "--armor", "--enarmour": "--enarmor",
            "--dearmour": "--dearmor"},
}
#: Programs of `LONG_OPTIONS` that run a command after their own options (`env`, `nice`, `xargs`…): its words are
#: not theirs, so `spelled_out` leaves them be; the reader that knows where their options end reads each with
#: `long_name`.
_RUNNERS = frozenset({"env", "nice", "timeout", "stdbuf", "ionice", "flock", "su", "runuser", "setsid", "taskset",
                      "chrt", "time", "sudo", "strace", "fakeroot", "xargs"})


def long_name(program: str, word: str) -> str:
    """`word`, an argument of `program`, with a long option given by a unique prefix of one of `LONG_OPTIONS`
    written in full (``--target=claims`` is ``--target-directory=claims``), and another name of an option written
    as that option (`_SAME`: ``gpg --clear`` and ``--clearsign`` are ``--clear-sign``); unchanged when it is no
    such prefix (an option given in full, a prefix of several options, which the program refuses, or of none)."""
    known = LONG_OPTIONS.get(program)
    name, eq, value = word.partition("=")
    if known is None or not name.startswith("--") or len(name) <= 2:
        return word
    same = _SAME.get(program, {})
    longer = {same.get(option, option) for option in ([name] if name in known else known)
              if option.startswith(name)}
    return longer.pop() + eq + value if len(longer) == 1 else word


def spelled_out(program: str, args: list[str]) -> list[str]:
    """`args` of `program` with each long option cut short written in full (`long_name`), up to ``--``; unchanged
    for a program that runs a command after its options (its reader reads them one by one).

    A ``--`` right after an option may be that option's value (``cp --suffix -- --target=DIR``, ``cp -S --``): the
    words after it are written out too (an operand named like an option cut short, if it was one, keeps its folder).
    """
    if program in _RUNNERS or program not in LONG_OPTIONS:
        return args
    out: list[str] = []
    for index, arg in enumerate(args):
        before = args[index - 1] if index else ""
        if arg == "--" and not (before.startswith("-") and before not in ("-", "--") and "=" not in before):
            return out + args[index:]
        out.append(long_name(program, arg))
    return out


def options(args: list[str], with_value: set[str]) -> tuple[list[str], dict[str, str], set[str]]:
    """Operands, option values and flags of a command's arguments (after `--`, everything is an operand). An option
    of `with_value` takes the rest of its cluster or the next word (``-mMSG``, ``-m MSG``, ``--message MSG``); one
    marked `OPTIONAL` takes only a value attached (``-SKEY``, ``--gpg-sign=KEY``)."""
    operands: list[str] = []
    values: dict[str, str] = {}
    flags: set[str] = set()
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--":
            operands.extend(args[index:])
            break
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
            if eq:
                values[name] = value
            elif name in with_value and index < len(args):
                values[name] = args[index]
                index += 1
            else:
                flags.add(name)
            continue
        if arg.startswith("-") and len(arg) > 1:
            for pos, ch in enumerate(arg[1:], start=1):
                option = f"-{ch}"
                if option in with_value or option + OPTIONAL in with_value:
                    rest = arg[pos + 1:]
                    if rest:
                        values[option] = rest
                    elif option not in with_value:  # (its value is optional: none given)
                        flags.add(option)
                    elif index < len(args):
                        values[option] = args[index]
                        index += 1
                    break
                flags.add(option)
            continue
        operands.append(arg)
    return operands, values, flags


def in_bundle(arg: str, wanted: Container[str], valued: str) -> tuple[str, str] | None:
    """In a bundle of short options (`-ave`, `-vo'KEY CMD'`, `perl -le`), the first of `wanted` and the rest of its
    word, its value ("": the next word is); or ("", REST) when a letter of `valued` (another option taking the rest
    of its word, or the next word when REST is "") ends the bundle first; None when `arg` is no bundle, or one
    holding neither."""
    if not arg.startswith("-") or arg.startswith("--") or len(arg) < 2 or arg in wanted:
        return None
    for at in range(1, len(arg)):
        if f"-{arg[at]}" in wanted:
            return f"-{arg[at]}", arg[at + 1:]
        if arg[at] in valued:
            return "", arg[at + 1:]
    return None
