"""Spellings of a write the shell's reader must see through (SPEC 21.3): a protocol file written by a command the
shell runs in a compound command, through a wrapper, or spelled by quoting, line joins or brace expansion."""

from __future__ import annotations

import pytest

from brain_tui.core.sessions.shell_targets import read_command

W = "/w"


def paths(command: str, cwd: str = W) -> set[str]:
    return {t.path for t in read_command(command, cwd, home="/home/u").targets}


@pytest.mark.parametrize("command", [
    "{ rm -rf claims; }",
    "if true; then rm -rf claims; fi",
    "if false; then :; else rm -rf claims; fi",
    "if false; then :; elif rm -rf claims; then :; fi",
    "for f in a; do rm -rf claims; done",
    "while rm -rf claims; do :; done",
    "until true; do rm -rf claims; done",
    "f() { rm -rf claims; }; f",
    "function f { rm -rf claims; }",
    "coproc rm -rf claims",
    "exec -a other rm -rf claims",
    "env -S 'rm -rf claims'",
    "env --split-string='rm -rf claims'",
    "setsid rm -rf claims",
    "setsid -f rm -rf claims",
    "busybox rm -rf claims",
    "toybox rm -rf claims",
    "fakeroot rm -rf claims",
    "unbuffer rm -rf claims",
    "taskset -c 0 rm -rf claims",
    "taskset 0x1 rm -rf claims",
    "chrt -f 1 rm -rf claims",
    "runuser -u me -- rm -rf claims",
    "su -c 'rm -rf claims'",
    "{ cd claims; }; touch a.yml",
])
def test_a_command_in_a_compound_or_behind_a_wrapper_is_read(command: str) -> None:
    found = paths(command)
    assert "/w/claims" in found or "/w/claims/a.yml" in found, found


@pytest.mark.parametrize(("command", "expected"), [
    ("if test -f a; then echo ok; fi > notes/out", {"/w/notes/out"}),
    ("for f in a b; do cat $f; done", set()),
    ("{ ls; git status; }", set()),
    ("find . -name '*.py' -exec grep -l x {} +", set()),
    ("time { ls; }", set()),
])
def test_ordinary_compounds_name_only_what_they_write(command: str, expected: set[str]) -> None:
    assert paths(command) == expected


@pytest.mark.parametrize(("command", "expected"), [
    # a backslash-newline joins the two lines into one word: the shell writes `notes/../claims/a.yml`
    ("echo x > notes/\\\n../claims/a.yml", "/w/claims/a.yml"),
    ("rm -rf cla\\\nims", "/w/claims"),
    ('echo x > "notes/\\\n../claims/a.yml"', "/w/claims/a.yml"),
    # a comment ends at its line's end, a backslash before it included: the next line is a command
    ("# note \\\nrm -rf claims", "/w/claims"),
    ("ls # note \\\nrm -rf claims", "/w/claims"),
    # ANSI-C quoting is quoting: `$'claims/a.yml'` is the word claims/a.yml
    ("echo x >> $'claims/a.yml'", "/w/claims/a.yml"),
    ("rm -rf $'\\x63laims'", "/w/claims"),
    ("rm -rf $'\\143laims'", "/w/claims"),
    ("rm -rf $'cl\\'aims'x", "/w/cl'aimsx"),
    ('rm -rf $"claims"', "/w/claims"),
])
def test_a_word_spelled_by_line_joins_or_ansi_c_quotes_is_read(command: str, expected: str) -> None:
    assert expected in paths(command)


@pytest.mark.parametrize(("command", "expected"), [
    ("echo 'a\\\nb' > notes/f", {"/w/notes/f"}),
    ("echo $'a\\nb' > notes/f; echo $HOME", {"/w/notes/f"}),
    ("ls \\\n  -la", set()),
])
def test_line_joins_and_ansi_c_quotes_change_nothing_else(command: str, expected: set[str]) -> None:
    assert paths(command) == expected


@pytest.mark.parametrize(("command", "expected"), [
    ("rm -rf {claims,x}", {"/w/claims", "/w/x"}),
    ("rm -rf {c,}laims", {"/w/claims", "/w/laims"}),
    ("rm -rf notes/{x,../claims}", {"/w/notes/x", "/w/claims"}),
    ("rm -rf c{l..l}aims", {"/w/claims"}),
    ("echo x | tee notes/{a,b{1,2}}.md", {"/w/notes/a.md", "/w/notes/b1.md", "/w/notes/b2.md"}),
    ("{rm,-rf,claims}", {"/w/claims"}),
    ("touch notes/'{a,b}'", {"/w/notes/{a,b}"}),
    ("touch notes/{a}", {"/w/notes/{a}"}),
    ("echo ${HOME} | tee notes/{a,b}", {"/w/notes/a", "/w/notes/b"}),
    ("touch notes/{01..3}", {"/w/notes/01", "/w/notes/02", "/w/notes/03"}),
    # bash reads a number outside its 64-bit integers as no sequence: the word stays as written
    ("touch notes/{9223372036854775806..9223372036854775807}",
     {"/w/notes/9223372036854775806", "/w/notes/9223372036854775807"}),
    ("touch notes/{1..99999999999999999999999}", {"/w/notes/{1..99999999999999999999999}"}),
    ("touch notes/{1..3..9223372036854775808}", {"/w/notes/{1..3..9223372036854775808}"}),
    ("touch notes/{1.." + "9" * 5000 + "}", {"/w/notes/{1.." + "9" * 5000 + "}"}),
    ("touch notes/{" + "-9" + "9" * 5000 + "..1}", {"/w/notes/{-9" + "9" * 5000 + "..1}"}),
    ("touch notes/{1..2.." + "9" * 5000 + "}", {"/w/notes/{1..2.." + "9" * 5000 + "}"}),
])
def test_brace_expansion_is_read(command: str, expected: set[str]) -> None:
    assert paths(command) == expected


def test_unquoted_braces_in_other_words_stay_as_written() -> None:
    assert paths("sed -i 's/{a,b}/x/' notes/f") == {"/w/notes/f"}
    assert paths("find . -exec grep -l x {} +; awk '{print}' f") == set()


@pytest.mark.parametrize("command", [
    "echo $(rm -rf claims)",
    'echo "$(rm -rf claims)"',
    "echo `rm -rf claims`",
    'x="`rm -rf claims`"',
    "echo $(echo $(rm -rf claims))",
    "cat <(rm -rf claims)",
    "eval 'rm -rf claims'",
    'eval rm -rf "claims"',
    "bash <<< 'rm -rf claims'",
    "<<< 'rm -rf claims' sh",
    "echo 'rm -rf claims' | sh",
    "printf 'rm -rf claims\\n' | bash -s",
    "echo rm -rf claims | sudo bash",
    "cat <<EOF | bash\nrm -rf claims\nEOF",
    "cat <<'EOF' | env sh -s\nrm -rf claims\nEOF",
])
def test_commands_handed_to_a_shell_on_the_line_are_read(command: str) -> None:
    assert "/w/claims" in paths(command)


@pytest.mark.parametrize(("command", "expected"), [
    ("echo $(date) > notes/when", {"/w/notes/when"}),
    ("git log --format=%H -n1 $(git rev-parse HEAD)", set()),
    ("echo 'rm -rf claims' > notes/cmd.txt", {"/w/notes/cmd.txt"}),
    ("echo 'rm -rf claims' | grep rm", set()),
    ("cat <<EOF > notes/run.sh\nrm -rf build\nEOF", {"/w/notes/run.sh"}),
    ("grep -c x <<< 'rm -rf claims'", set()),
])
def test_text_never_run_by_a_shell_stays_text(command: str, expected: set[str]) -> None:
    assert paths(command) == expected


@pytest.mark.parametrize(("command", "expected"), [
    ("sed -n 'w claims/a.yml' notes/a.md", "/w/claims/a.yml"),
    ("sed 's/a/b/w claims/a.yml' notes/a.md", "/w/claims/a.yml"),
    ("sed -e p -e '1W claims/a.yml' notes/a.md", "/w/claims/a.yml"),
    ("sed -n '/x/w claims/a.yml' notes/a.md", "/w/claims/a.yml"),
    ("sed -ne '1w claims/a.yml' notes/a.md", "/w/claims/a.yml"),
    ("sed --expression='s|a|b|gw claims/a.yml' notes/a.md", "/w/claims/a.yml"),
    ("vim -c 'w claims/a.yml' -c q notes/a.md", "/w/claims/a.yml"),
    ("vim -es '+saveas! claims/a.yml' '+q' notes/a.md", "/w/claims/a.yml"),
    ("ex -c '%s/a/b/|write claims/a.yml|q' notes/a.md", "/w/claims/a.yml"),
])
def test_a_file_an_editor_script_writes_is_read(command: str, expected: str) -> None:
    assert expected in paths(command)


@pytest.mark.parametrize(("command", "expected"), [
    ("sed -n '/w x/p' notes/a.md", set()),
    ("sed 's/w/x/g' notes/a.md", set()),
    ("sed -e 's/a/b/' notes/a.md", set()),
    ("vim -c 'set tw=80' -c 'wq' notes/a.md", {"/w/notes/a.md"}),
])
def test_editor_scripts_that_write_no_other_file_name_none(command: str, expected: set[str]) -> None:
    assert paths(command) == expected


@pytest.mark.parametrize(("command", "expected"), [
    # GNU programs take any unique prefix of a long option, its value after `=` or as the next word
    ("cp --target-dir=claims notes/x", "/w/claims/x"),
    ("cp --target-d claims notes/x", "/w/claims/x"),
    ("cp --target claims notes/x", "/w/claims/x"),
    ("cp --li claims/a.yml notes/h", "/w/claims/a.yml"),  # a hard link: the source is written through it
    ("mv --targ=claims notes/x", "/w/claims/x"),
    ("install --target=claims notes/x", "/w/claims/x"),
    ("install --t claims notes/x", "/w/claims/x"),
    ("ln -s --target claims notes/x", "/w/claims/x"),
    ("sed --in-pl s/a/b/ claims/a.yml", "/w/claims/a.yml"),
    ("sed --in-pl=.bak s/a/b/ claims/a.yml", "/w/claims/a.yml"),
    ("sed --i s/a/b/ claims/a.yml", "/w/claims/a.yml"),
    ("sed -i --expr=s/a/b/ claims/a.yml", "/w/claims/a.yml"),
    ("sed -i --fi=s.sed claims/a.yml", "/w/claims/a.yml"),
    ("sed --expr='w claims/a.yml' notes/a.md", "/w/claims/a.yml"),
    ("tar --extr --file=a.tar --dir=claims", "/w/claims"),
    ("tar --extr -f a.tar -C claims", "/w/claims"),
    ("tar --ext -f a.tar -C claims", "/w/claims"),
    ("tar --cr -f claims/a.tar notes", "/w/claims/a.tar"),
    ("tar --app -f claims/a.tar notes", "/w/claims/a.tar"),
    ("tar --upd -f claims/a.tar notes", "/w/claims/a.tar"),
    ("sort --out=claims/a.yml notes/a", "/w/claims/a.yml"),
    ("sort --out claims/a.yml notes/a", "/w/claims/a.yml"),
])
def test_a_long_option_cut_short_is_read_as_the_whole_option(command: str, expected: str) -> None:
    assert expected in paths(command)


@pytest.mark.parametrize(("command", "expected"), [
    ("cp a.txt src/", {"/w/src/a.txt"}),
    ("cp --target-dir=src a.txt", {"/w/src/a.txt"}),
    ("sed -n 1p f", set()),
    ("sed --qui 1p f", set()),
    ("mkdir -p src/x", {"/w/src/x"}),
    ("mkdir --mo 755 src/x", {"/w/src/x"}),
    ("rm -rf src/build", {"/w/src/build"}),
    ("touch --refer claims/a.yml src/a", {"/w/src/a"}),
    ("truncate --si 0 src/a", {"/w/src/a"}),
    ("truncate --refer claims/a.yml src/a", {"/w/src/a"}),
    ("tar --to-std -xf a.tar", set()),
    ("gzip --std src/a", set()),
    ("sed -i --ver", set()),  # no operand, nothing written
    ("cp -- --target=claims src/", {"/w/src/--target=claims"}),  # after `--`, an operand
])
def test_a_value_of_a_long_option_cut_short_is_no_target(command: str, expected: set[str]) -> None:
    assert paths(command) == expected


@pytest.mark.parametrize(("command", "expected"), [
    ("install --directory claims/d", {"/w/claims/d"}),
    ("install --dir claims/d notes/e", {"/w/claims/d", "/w/notes/e"}),
    ("install -m 755 -d claims/d", {"/w/claims/d"}),
])
def test_each_folder_install_makes_is_a_target(command: str, expected: set[str]) -> None:
    assert paths(command) == expected


@pytest.mark.parametrize(("command", "expected"), [
    ("chmod --reference=notes/a claims/a.yml", {"/w/claims/a.yml"}),
    ("chmod --reference notes/a claims/a.yml", {"/w/claims/a.yml"}),
    ("chmod --refer notes/a claims/a.yml", {"/w/claims/a.yml"}),
    ("chown --reference notes/a claims/a.yml", {"/w/claims/a.yml"}),
    ("chmod -w claims/a.yml", {"/w/claims/a.yml"}),  # a mode that looks like an option is a mode
    ("chmod -Rw claims", {"/w/claims"}),
    ("chmod -R -w,+x claims notes/b", {"/w/claims", "/w/notes/b"}),
    ("chmod a-w claims/a.yml", {"/w/claims/a.yml"}),
    ("chmod -R 000 claims", {"/w/claims"}),
    ("chown --from=a b claims/a.yml", {"/w/claims/a.yml"}),
    ("chattr -i claims/a.yml", {"/w/claims/a.yml"}),
    ("chattr -R +i claims", {"/w/claims"}),
    ("setfacl -b claims/a.yml", {"/w/claims/a.yml"}),
    ("setfacl --modify=u:x:r claims/a.yml", {"/w/claims/a.yml"}),
    ("setfacl -m u:x:r claims/a.yml notes/b", {"/w/claims/a.yml", "/w/notes/b"}),
])
def test_each_file_whose_mode_owner_or_attributes_change_is_a_target(command: str, expected: set[str]) -> None:
    assert paths(command) == expected


@pytest.mark.parametrize(("command", "expected"), [
    ("mktemp --tmp=claims", "/w/claims/tmp.XXXXXXXXXX"),
    ("csplit --pre=claims/x notes/a 1", "/w/claims/x"),
    ("uniq --skip-f 1 notes/a claims/x", "/w/claims/x"),
    ("split --lin 1 notes/a claims/x", "/w/claims/x"),
    ("wget --output-doc=claims/x https://e.org", "/w/claims/x"),
    ("iconv -f utf-8 --out=claims/x notes/a", "/w/claims/x"),
    ("gpg --out claims/x -d notes/a.gpg", "/w/claims/x"),
    ("curl --output-d claims -o a https://e.org", "/w/claims"),
    ("curl --cookie-j claims/x https://e.org", "/w/claims/x"),
    ("cpio --extr --dir=claims < a.cpio", "/w/claims"),
    ("cpio -i --direc claims < a.cpio", "/w/claims"),
    ("cpio --cr --fil=claims/a.cpio < list", "/w/claims/a.cpio"),
    ("gawk --sou='BEGIN { print 1 > \"claims/a.yml\" }'", "/w/claims/a.yml"),
    ("gawk --incl=inplace '{ print }' claims/a.yml", "/w/claims/a.yml"),
    ("awk --incl inplace '{ print }' claims/a.yml", "/w/claims/a.yml"),
])
def test_a_long_option_cut_short_names_the_output_it_writes(command: str, expected: str) -> None:
    assert expected in paths(command)


@pytest.mark.parametrize(("command", "expected"), [
    ("mkfifo --mo 600 notes/p", {"/w/notes/p"}),
    ("curl --head https://e.org", set()),  # an option of its own, no prefix of --header
    ("curl --hea x https://e.org", set()),  # ambiguous: curl refuses it
])
def test_a_value_of_an_output_option_cut_short_is_no_target(command: str, expected: set[str]) -> None:
    assert paths(command) == expected


@pytest.mark.parametrize("command", [
    # a wrapper's long option, whole or cut short, with its value as the next word: the command after it runs
    "nice --adjustment 5 rm -rf claims", "nice --adj 5 rm -rf claims", "nice --adj=5 rm -rf claims",
    "ionice --class 2 rm -rf claims", "ionice --classd 4 rm -rf claims", "ionice --classdata 4 rm -rf claims",
    "timeout --sig KILL 5 rm -rf claims", "timeout --kill 1 5 rm -rf claims",
    "env --uns X rm -rf claims", "env --split='rm -rf claims'", "env --sp 'rm -rf claims'",
    "env --ch=claims touch a.yml", "env --ch claims touch a.yml",
    "sudo --us root rm -rf claims", "sudo --user root rm -rf claims", "sudo --chd=claims touch a.yml",
    "stdbuf --output L rm -rf claims", "stdbuf --out L rm -rf claims", "stdbuf --err=0 rm -rf claims",
    "flock --time 1 f rm -rf claims", "su --session-command 'rm -rf claims'", "su --sess='rm -rf claims'",
    "runuser --us me -- rm -rf claims", "su --comm 'rm -rf claims'",
    "chrt --sched-runtime 5 --deadline 0 rm -rf claims", "strace --user me rm -rf claims",
    "strace --string-limit 80 rm -rf claims", "time --out claims/a.yml ls", "strace --string-lim 80 rm -rf claims",
])
def test_a_wrapper_option_cut_short_or_whole_is_passed_over(command: str) -> None:
    """(`ionice --cl`, `sudo --ch`, `strace --out` are ambiguous: the program refuses them.)"""
    found = paths(command)
    assert "/w/claims" in found or "/w/claims/a.yml" in found, found


@pytest.mark.parametrize("command", ["xargs --arg=list rm -rf", "xargs --arg list rm -rf",
                                     "xargs --null --arg-f=list rm -rf"])
def test_xargs_arguments_from_a_file_cut_short_are_unreadable(command: str) -> None:
    assert read_command(command, W).partial


@pytest.mark.parametrize("command", ["gawk --exec prog.awk notes/a", "gawk -E prog.awk notes/a",
                                     "gawk --ex=prog.awk notes/a", "gawk --fil prog.awk notes/a"])
def test_an_awk_program_file_is_unread(command: str) -> None:
    assert "gawk: a program file" in read_command(command, W).unread


@pytest.mark.parametrize("command", ["rm --recur notes", "rm --recursive notes", "cp --recur src/ notes/x",
                                     "chmod --recur 000 notes", "gzip --recur notes"])
def test_a_recursive_option_cut_short_writes_the_whole_tree(command: str) -> None:
    assert any(t.tree and t.path.startswith("/w/notes") for t in read_command(command, W).targets)


@pytest.mark.parametrize(("command", "expected"), [
    ("cp --suffix -- --target=claims notes/x", "/w/claims/x"),  # `--` is the suffix: options go on after it
    ("cp -S -- --targ claims notes/x", "/w/claims/x"),
    ("tar -f -- --extr --dir=claims", "/w/claims"),
    ("sed -e -- --in-pl claims/a.yml", "/w/claims/a.yml"),
])
def test_a_double_dash_an_option_takes_as_its_value_ends_no_options(command: str, expected: str) -> None:
    assert expected in paths(command)
