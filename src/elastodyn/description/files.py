"""Reading and writing robot descriptions: presets, YAML files and ``--set`` overrides.

``load_description(source, sets=())`` takes a preset name (``elastodyn robots`` lists
them) or the path of a YAML file, applies ``KEY=VALUE`` overrides (``--set``) and
returns the validated spec (:mod:`.schema`). ``dump_yaml(spec)`` writes a spec as a YAML
document that reads back to the same robot (``elastodyn describe``).

Safety: files are read with ``yaml.safe_load`` (no object construction, no code), at
most :data:`MAX_FILE_BYTES`; an override value is YAML scalar or list data, never
evaluated. Errors are :class:`DescriptionError` (a ValueError) with one line naming the
file (or ``--set``), the path of the entry, the value and what is allowed.
"""
from __future__ import annotations

from pathlib import Path

from ..exceptions import InputError
from . import schema as S

__all__ = ["DescriptionError", "load_description", "dump_yaml", "apply_sets", "is_file_source",
           "MAX_FILE_BYTES"]

MAX_FILE_BYTES = 1_000_000


class DescriptionError(InputError):
    """A description (file, preset or override) is invalid; the message is one line."""

    def __init__(self, message: str):
        ValueError.__init__(self, message)
        self.name, self.value, self.allowed = "description", None, message


def is_file_source(source) -> bool:
    """True if ``source`` names a file (a path with a separator or a .yaml/.yml suffix)."""
    s = str(source)
    return isinstance(source, Path) or "/" in s or s.endswith((".yaml", ".yml")) or "\\" in s


def _read_yaml(path: Path):
    import yaml
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise DescriptionError(f"{path}: no such description file") from None
    except OSError as exc:
        raise DescriptionError(f"{path}: cannot read ({exc.strerror})") from None
    if not path.is_file():
        raise DescriptionError(f"{path}: not a file")
    if size > MAX_FILE_BYTES:
        raise DescriptionError(f"{path}: {size} bytes; allowed: a description of at most "
                               f"{MAX_FILE_BYTES} bytes")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise DescriptionError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise DescriptionError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise DescriptionError(f"{path}:{where}: {problem}") from None
    return data


def _validate(data, origin: str):
    from pydantic import ValidationError
    try:
        return S.parse_spec(data)
    except ValidationError as exc:
        fam = data.get("family") if isinstance(data, dict) else None
        cls = S.spec_class(fam) if fam in S.FAMILIES else None
        raise DescriptionError(f"{origin}: {S.validation_message(exc, cls)}") from None
    except ValueError as exc:
        # parse_spec's own refusals (not a mapping, no valid family); any other
        # ValueError is a bug and is not disguised as bad input
        if isinstance(data, dict) and data.get("family") in S.FAMILIES:
            raise
        raise DescriptionError(f"{origin}: {exc}") from None


def _preset_spec(name: str):
    from .convert import to_spec
    from .presets import get_preset
    return to_spec(get_preset(name))


def load_description(source, sets=()):
    """The validated spec of a preset name or a YAML file, with ``sets`` applied.

    Parameters
    ----------
    source : str or pathlib.Path
        A preset name (``delta-kuo2016``) or a file path (``robot.yaml``).
    sets : sequence of str
        Overrides ``KEY=VALUE`` (:func:`apply_sets`).

    Raises
    ------
    DescriptionError
        Unknown preset, unreadable or invalid file, bad override (one line).
    """
    if is_file_source(source):
        path = Path(source)
        spec = _validate(_read_yaml(path), str(path))
        origin = str(path)
    else:
        from .presets import PRESETS
        if str(source) not in PRESETS:
            raise DescriptionError(f"invalid ROBOT: got {str(source)!r}; allowed: a preset ("
                                   + ", ".join(PRESETS) + ") or a description file "
                                   "(a path ending in .yaml)")
        spec = _preset_spec(str(source))
        origin = str(source)
    return apply_sets(spec, sets, origin) if sets else spec


def _parse_key(key: str) -> list:
    parts = []
    for p in key.split("."):
        p = p.strip()
        if not p:
            raise DescriptionError(f"--set: invalid key {key!r}; allowed: a dotted path "
                                   "such as links.lower.section.width")
        parts.append(int(p) if p.isdigit() else p)
    return parts


def apply_sets(spec, sets, origin: str = "description"):
    """Apply overrides ``KEY=VALUE`` to a spec and validate the result.

    KEY is the dotted path of an entry (``links.lower.section.width``, list items by
    index: ``links.0.mass``, ``joints.2.d``); VALUE is YAML data (``0.008``, ``[0, 0,
    9.81]``, ``spherical``, ``true``), read with ``yaml.safe_load`` (never evaluated).
    A missing mapping on the way is created (``payload.mass=0.2`` on a robot without
    payload).
    """
    import yaml
    data = spec.model_dump(mode="json", exclude_none=True)
    for item in sets:
        if "=" not in item:
            raise DescriptionError(f"--set: got {item!r}; allowed: KEY=VALUE, e.g. "
                                   "links.lower.section.width=0.008")
        key, text = item.split("=", 1)
        parts = _parse_key(key.strip())
        try:
            value = yaml.safe_load(text) if text.strip() else None
        except yaml.YAMLError:
            raise DescriptionError(f"--set {key}: value {text!r} is not valid YAML data") from None
        if isinstance(value, dict) or value is None and text.strip():
            raise DescriptionError(f"--set {key}: got {text!r}; allowed: a number, a word, "
                                   "true/false or a list")
        node = data
        for k, p in enumerate(parts[:-1]):
            nxt = parts[k + 1]
            if isinstance(node, list):
                if not isinstance(p, int) or not 0 <= p < len(node):
                    raise DescriptionError(f"--set {key}: {'.'.join(map(str, parts[:k + 1]))}"
                                           f" is not an item; allowed: an index 0 to {len(node) - 1}")
                node = node[p]
                continue
            if not isinstance(node, dict):
                raise DescriptionError(f"--set {key}: {'.'.join(map(str, parts[:k]))} is "
                                       "a value, not a mapping")
            if p not in node or node[p] is None:
                node[p] = [] if isinstance(nxt, int) else {}
            node = node[p]
        last = parts[-1]
        if isinstance(node, list):
            if not isinstance(last, int) or not 0 <= last < len(node):
                raise DescriptionError(f"--set {key}: no item {last}; allowed: an index 0 to "
                                       f"{len(node) - 1}")
            node[last] = value
        elif isinstance(node, dict):
            node[last] = value
        else:
            raise DescriptionError(f"--set {key}: {'.'.join(map(str, parts[:-1]))} is a "
                                   "value, not a mapping")
    return _validate(data, f"{origin} with --set")


def dump_yaml(spec, header: str | None = None) -> str:
    """The spec as a YAML document (keys in schema order, defaults written out so the
    file shows every entry a user can edit; ``None`` entries left out)."""
    import yaml
    data = spec.model_dump(mode="json", exclude_none=True)

    class _Dumper(yaml.SafeDumper):
        pass

    def _short_list(dumper, seq):
        flow = all(not isinstance(v, (dict, list)) for v in seq) or all(
            isinstance(v, list) and all(not isinstance(x, (dict, list)) for x in v)
            for v in seq)
        return dumper.represent_sequence("tag:yaml.org,2002:seq", seq,
                                         flow_style=flow and len(seq) <= 6)

    _Dumper.add_representer(list, _short_list)
    text = yaml.dump(data, Dumper=_Dumper, sort_keys=False, default_flow_style=False,
                     width=100, allow_unicode=False)
    head = header if header is not None else (
        f"# elastodyn robot description (family {spec.family}, schema {S.SCHEMA_VERSION}); "
        "SI units: m, rad, kg, kg m^2, Pa, kg/m^3, m/s^2.\n"
        "# Edit and pass the file as ROBOT to any verb; see README, "
        "'Describe your own robot'.\n")
    return head + text
