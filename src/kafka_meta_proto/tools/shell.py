"""The metadata shell: a metadata image shown as a read-only file tree, and a small command language.

The tree is Kafka's metadata shell's (``/image/...`` and ``/local``, see ``shell_layout``): the
same paths, the same file text, listed in the same order. Our earlier field-per-file layout stays
reachable at its old paths (hidden from ``ls /`` and ``find /``);
``shell_tree.image_tree(image)`` builds it::

    /brokers/<id>/...            a broker registration, one file per field
    /controllers/<id>/...        a controller registration
    /topics/<name>/              id, name, partitions/<n>/... (replicas, isr, leader, ...)
    /topicIds/<id>/              the same topic, found by id
    /configs/<type>/<name>/<key> configs (type: topic, broker, ...; <default> for the empty name)
    /features/<name>             finalized feature levels
    /producerIds/                nextProducerId, brokerId, brokerEpoch
    /acls/<id>/                  ACL entries
    /clientQuotas/<type>/<name>/[<type>/<name>/]<key>
    /scram/<mechanism>/<user>/   SCRAM credentials
    /delegationTokens/<id>/      delegation tokens
    /diskless/<topicId>/<n>      the coordinator partition of a diskless partition
    /zkMigrationState, /offset, /epoch

``MetadataShell`` runs commands against such a tree: ls [-l], cd, cat, find, tree, pwd, history,
man, help, exit. In the old layout, names that hold a ``/`` (or are ``.`` or ``..``) show it as
``%2F`` (``%2E``), and a literal ``%`` as ``%25``.
"""

from __future__ import annotations

import fnmatch
import shlex
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TextIO

from ..kraft.image import MetadataImage
from .shell_layout import KafkaDir, Node, Tree, kafka_tree
from .shell_tree import image_tree

# --- paths ------------------------------------------------------------------------------------


class ShellError(Exception):
    """A command failed; the message is printed to stderr."""


def _sort_key(name: str) -> tuple[int, int, str]:
    # Numbers in numeric order (partitions 0, 1, 2, 10), before other names.
    return (0, int(name), "") if name.isdigit() else (1, 0, name)


def children(node: Tree) -> list[str]:
    """A directory's entries in listing order: Kafka's layout sorts as Kafka's shell does (plain
    string order), the old layout puts numbers in numeric order."""
    return sorted(node) if isinstance(node, KafkaDir) else sorted(node, key=_sort_key)


def join(path: str, name: str) -> str:
    return path.rstrip("/") + "/" + name


def _last_component(path: str) -> str:
    parts = [p for p in path.split("/") if p]
    return parts[-1] if parts else "/"


def normalize(cwd: str, path: str) -> list[str]:
    """The components of ``path`` (absolute, or relative to ``cwd``) after ``.`` and ``..``."""
    parts = [] if path.startswith("/") else [p for p in cwd.split("/") if p]
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
        else:
            parts.append(part)
    return parts


def _has_glob(part: str) -> bool:
    return any(c in part for c in "*?[")


# --- the interpreter ------------------------------------------------------------------------


@dataclass
class Command:
    name: str
    usage: str
    summary: str
    manual: str


COMMANDS = {
    c.name: c
    for c in (
        Command("ls", "ls [-l] [PATH ...]", "list a directory's entries",
                "Lists the entries of each directory PATH (default: the current one), in order. A file\n"
                "PATH is printed by its name. With several PATHs each directory's entries follow its\n"
                "name and a colon. -l adds a type column (d directory, - file) and a size: the number of\n"
                "entries of a directory, the length of a file in characters. PATH may use the wildcards\n"
                "* ? [...] in any component."),
        Command("cd", "cd [PATH]", "change the current directory",
                "Makes PATH the current directory; without PATH, goes back to /. Relative paths, . and ..\n"
                "work as in a Unix shell."),
        Command("cat", "cat PATH ...", "print files",
                "Prints the contents of each file PATH. Values are shown as text: numbers, true/false,\n"
                "lists as [a, b], uuids in Kafka's base64 form, int8 codes as NAME (code), null for none."),
        Command("find", "find [PATH ...]", "list a tree recursively",
                "Prints PATH (default: .) as given and the path of everything below it, depth first,\n"
                "one per line."),
        Command("tree", "tree PATH ...", "print a tree's files with their contents",
                "Prints each PATH: a file's text, or for a directory each entry's name and a colon,\n"
                "then its contents indented by two spaces, recursively."),
        Command("pwd", "pwd", "print the current directory", "Prints the absolute path of the current directory."),
        Command("history", "history [N]", "show the commands run so far",
                "Prints the commands of this session, numbered, oldest first; with N only the last N."),
        Command("man", "man COMMAND", "show a command's manual", "Prints the usage and description of COMMAND."),
        Command("help", "help", "list the commands", "Lists the commands with a one-line summary each."),
        Command("exit", "exit", "leave the shell",
                "Ends the session; the commands after it are not run. quit is the same."),
    )  # fmt: skip
}
ALIASES = {"quit": "exit", "dir": "ls"}


@dataclass
class MetadataShell:
    """Runs shell commands against an image's tree; output to ``out``, errors to ``err``."""

    tree: Tree
    aliases: Tree = field(default_factory=dict)  # top-level names resolvable but not listed
    out: TextIO | None = None  # default sys.stdout
    err: TextIO | None = None  # default sys.stderr
    cwd: str = "/"
    history: list[str] = field(default_factory=list)
    exited: bool = False

    @classmethod
    def for_image(cls, image: MetadataImage, **kwargs: Any) -> MetadataShell:
        """Kafka's layout, with the old one's paths as aliases."""
        return cls(kafka_tree(image, timestamp=image.timestamp), image_tree(image), **kwargs)

    def __post_init__(self) -> None:
        self.out = self.out or sys.stdout
        self.err = self.err or sys.stderr

    # -- path lookups ---------------------------------------------------------------------

    def lookup(self, path: str) -> tuple[str, Node]:
        """``(absolute path, node)`` of ``path``, else ShellError."""
        node: Node = self.tree
        parts = normalize(self.cwd, path)
        for i, part in enumerate(parts):
            if not isinstance(node, dict):
                raise ShellError(f"{path}: not a directory")
            if part not in node:
                if i == 0 and part in self.aliases:
                    node = self.aliases[part]
                    continue
                raise ShellError(f"{path}: no such file or directory")
            node = node[part]
        return "/" + "/".join(parts), node

    def expand(self, path: str) -> list[str]:
        """The paths a pattern with wildcards matches (the path itself when it has none)."""
        if not _has_glob(path):
            return [path]
        found = [
            (
                "/" if path.startswith("/") else "",
                self.tree if path.startswith("/") else self.lookup(".")[1],
            )
        ]
        for part in [p for p in path.split("/") if p]:
            next_found = []
            for prefix, node in found:
                if not isinstance(node, dict):
                    continue
                if part in (".", ".."):
                    next_found.append((prefix + part + "/", self.lookup(prefix + part)[1]))
                    continue
                if not _has_glob(part):
                    child = node.get(part, self.aliases.get(part) if node is self.tree else None)
                    if child is not None:
                        next_found.append((prefix + part + "/", child))
                    continue
                names = [n for n in children(node) if fnmatch.fnmatchcase(n, part)]
                next_found.extend((prefix + name + "/", node[name]) for name in names)
            found = next_found
        if not found:
            raise ShellError(f"{path}: no such file or directory")
        return [prefix.rstrip("/") or "/" for prefix, _ in found]

    # -- running --------------------------------------------------------------------------

    def execute(self, line: str) -> int:
        """Run one command line; 0 on success, 1 if it failed (the error went to ``err``)."""
        line = line.strip()
        if not line or line.startswith("#"):
            return 0
        self.history.append(line)
        try:
            words = shlex.split(line)
        except ValueError as exc:
            print(f"syntax error: {exc}", file=self.err)
            return 1
        if not words:
            return 0
        name, args = ALIASES.get(words[0], words[0]), words[1:]
        handler = getattr(self, f"_cmd_{name}", None)
        if handler is None:
            print(f"{words[0]}: unknown command (type help for the list)", file=self.err)
            return 1
        try:
            status: int = handler(args) or 0
            return status
        except ShellError as exc:
            print(f"{name}: {exc}", file=self.err)
            return 1

    def run_lines(self, lines: Iterable[str]) -> int:
        """Run commands until the lines run out or one is ``exit``; 1 if any of them failed."""
        status = 0
        for line in lines:
            status |= self.execute(line)
            if self.exited:
                break
        return status

    def _print(self, text: str = "") -> None:
        print(text, file=self.out)

    # -- commands -------------------------------------------------------------------------

    def _cmd_pwd(self, args: list[str]) -> int:
        self._print(self.cwd)
        return 0

    def _cmd_cd(self, args: list[str]) -> int:
        if len(args) > 1:
            raise ShellError("too many arguments")
        paths = self.expand(args[0]) if args else ["/"]
        if len(paths) > 1:
            raise ShellError(f"{args[0]}: matches more than one directory")
        path, node = self.lookup(paths[0])
        if not isinstance(node, dict):
            raise ShellError(f"{args[0]}: not a directory")
        self.cwd = path
        return 0

    def _cmd_ls(self, args: list[str]) -> int:
        long = False
        paths = []
        for arg in args:
            if arg.startswith("-") and len(arg) > 1:
                if set(arg[1:]) - {"l"}:
                    raise ShellError(f"unknown option {arg} (usage: {COMMANDS['ls'].usage})")
                long = True
            else:
                paths.append(arg)
        status, targets = 0, []
        for pattern in paths or ["."]:
            try:
                for path in self.expand(pattern):
                    targets.append((path, self.lookup(path)[1]))
            except ShellError as exc:
                print(f"ls: {exc}", file=self.err)
                status = 1
        files = [(_last_component(p), n) for p, n in targets if not isinstance(n, dict)]
        dirs = [(_last_component(p), n) for p, n in targets if isinstance(n, dict)]
        for name, text in files:
            self._print(self._ls_line(name, text) if long else name)
        # Kafka's layout of the listing: a heading per directory when there is more than one
        # target, a blank line before every heading but the first, nothing for an empty one.
        headed, first = len(targets) > 1, not files
        for name, directory in dirs:
            heading = "" if first else "\n"
            first = False
            if not directory:
                continue
            if headed:
                self._print(f"{heading}{name}:")
            for entry in children(directory):
                self._print(self._ls_line(entry, directory[entry]) if long else entry)
        return status

    @staticmethod
    def _ls_line(name: str, node: Node) -> str:
        if isinstance(node, dict):
            return f"d {len(node):>8} {name}"
        return f"- {len(node):>8} {name}"

    def _cmd_cat(self, args: list[str]) -> int:
        if not args:
            raise ShellError(f"missing operand (usage: {COMMANDS['cat'].usage})")
        status = 0
        for pattern in args:
            try:
                for path in self.expand(pattern):
                    _, node = self.lookup(path)
                    if isinstance(node, dict):
                        raise ShellError(f"{path}: is a directory")
                    self._print(node)
            except ShellError as exc:
                print(f"cat: {exc}", file=self.err)
                status = 1
        return status

    def _cmd_find(self, args: list[str]) -> int:
        status = 0
        for pattern in args or ["."]:
            try:
                for path in self.expand(pattern):
                    self._walk(path, self.lookup(path)[1])
            except ShellError as exc:
                print(f"find: {exc}", file=self.err)
                status = 1
        return status

    def _walk(self, path: str, node: Node) -> None:
        self._print(path)
        if isinstance(node, dict):
            for name in children(node):
                self._walk(join(path, name), node[name])

    def _cmd_tree(self, args: list[str]) -> int:
        if not args:
            raise ShellError(f"missing operand (usage: {COMMANDS['tree'].usage})")
        status = 0
        for pattern in args:
            try:
                for path in self.expand(pattern):
                    self._print_tree(self.lookup(path)[1], "")
            except ShellError as exc:
                print(f"tree: {exc}", file=self.err)
                status = 1
        return status

    def _print_tree(self, node: Node, indent: str) -> None:
        if not isinstance(node, dict):
            self._print(indent + node)
            return
        for name in children(node):
            self._print(f"{indent}{name}:")
            self._print_tree(node[name], indent + "  ")

    def _cmd_history(self, args: list[str]) -> int:
        entries = list(enumerate(self.history, start=1))
        if args:
            try:
                count = int(args[0])
            except ValueError:
                raise ShellError(f"{args[0]}: not a number") from None
            entries = entries[-count:] if count > 0 else []
        for number, line in entries:
            self._print(f"{number:5d}  {line}")
        return 0

    def _cmd_help(self, args: list[str]) -> int:
        self._print("Commands (man COMMAND for details):")
        for command in COMMANDS.values():
            self._print(f"  {command.usage:<22} {command.summary}")
        return 0

    def _cmd_man(self, args: list[str]) -> int:
        if len(args) != 1:
            raise ShellError(f"usage: {COMMANDS['man'].usage}")
        command = COMMANDS.get(ALIASES.get(args[0], args[0]))
        if command is None:
            raise ShellError(f"{args[0]}: no manual entry (type help for the list)")
        self._print(
            f"{command.name} - {command.summary}\n\nUSAGE\n  {command.usage}\n\nDESCRIPTION"
        )
        for line in command.manual.splitlines():
            self._print(f"  {line}")
        return 0

    def _cmd_exit(self, args: list[str]) -> int:
        self.exited = True
        return 0

    # -- completion -----------------------------------------------------------------------

    def completions(self, line: str, text: str) -> list[str]:
        """What ``text`` (the word being typed; ``line`` is everything before it) may complete to."""
        words = line.split()
        if not words:
            return sorted(name + " " for name in [*COMMANDS, *ALIASES] if name.startswith(text))
        if ALIASES.get(words[0], words[0]) in ("man", "help"):
            return sorted(name + " " for name in COMMANDS if name.startswith(text))
        head, _, prefix = text.rpartition("/")
        base = head + "/" if _ else ""
        try:
            _, node = self.lookup(base or ".")
        except ShellError:
            return []
        if not isinstance(node, dict):
            return []
        matches = []
        for name in children(node):
            if name.startswith(prefix):
                matches.append(base + name + ("/" if isinstance(node[name], dict) else " "))
        return matches


# --- interactive mode ---------------------------------------------------------------------------


def _readline_no_append() -> Callable[[], None] | None:
    """A function that stops GNU readline adding a space after the completion (for a directory's
    ``/``), or None when the readline library does not allow it."""
    try:
        import ctypes

        import readline

        if "libedit" in (readline.__doc__ or ""):
            return None
        append = ctypes.c_int.in_dll(
            ctypes.CDLL(readline.__file__), "rl_completion_append_character"
        )
    except (ImportError, OSError, ValueError, AttributeError):
        return None

    def no_append() -> None:
        append.value = 0

    return no_append


def interactive(shell: MetadataShell, *, banner: str | None = None) -> int:
    """Read commands from the terminal with line editing, history and tab completion."""
    import readline

    no_append = _readline_no_append()
    matches: list[str] = []

    def complete(text: str, state: int) -> str | None:
        nonlocal matches
        if state == 0:
            line = readline.get_line_buffer()[: readline.get_begidx()]
            matches = shell.completions(line, text)
            if no_append is not None:
                no_append()  # our matches carry their own trailing " " or "/"
            else:
                matches = [m.rstrip(" ") for m in matches]
        return matches[state] if state < len(matches) else None

    readline.set_completer(complete)
    readline.set_completer_delims(" \t\n")
    readline.parse_and_bind("tab: complete")
    if banner:
        print(banner, file=shell.out)
    while not shell.exited:
        try:
            line = input(f"metadata:{shell.cwd}> ")
        except EOFError:
            print(file=shell.out)
            break
        except KeyboardInterrupt:
            print("^C", file=shell.out)
            continue
        shell.execute(line)
    return 0
