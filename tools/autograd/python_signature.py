"""The Python signatures of the ops, as upstream's codegen builds them for torch's argument parser
(torchgen/api/python.py: argument_type_str, default_expr, PythonSignature.signature_str;
tools/autograd/gen_python_functions.py: group_overloads, sort_overloads; deprecated.yaml's hidden
signatures), and as the parser prints them (torch/csrc/utils/python_arg_parser.cpp:
FunctionParameter::type_name, FunctionSignature::toString).

torchlite parses arguments in its kernels; these signatures serve the failure path only: which
overload a call that binds to none was closest to, and torch's "received an invalid combination of
arguments" listing (torchlite/_ops/python_arg_parser.py)."""
import re

# The JIT defaults the C++ API spells differently (torchgen/api/cpp.py's JIT_TO_CPP_DEFAULT).
_JIT_TO_CPP_DEFAULT = {"False": "false", "True": "true", "None": "::std::nullopt", "Mean": "at::Reduction::Mean",
                       "[]": "{}", "contiguous_format": "c10::MemoryFormat::Contiguous", "long": "at::kLong"}
# The parser's name of each C++ type (FunctionParameter::type_name).
_DISPLAY = {"Tensor": "Tensor", "Scalar": "Number", "int64_t": "int", "SymInt": "int", "double": "float",
            "TensorList": "tuple of Tensors", "c10::List<::std::optional<Tensor>>": "tuple of Tensors",
            "IntArrayRef": "tuple of ints", "SymIntArrayRef": "tuple of ints", "ArrayRef<double>": "tuple of floats",
            "Generator": "torch.Generator", "bool": "bool", "ScalarType": "torch.dtype", "Layout": "torch.layout",
            "MemoryFormat": "torch.memory_format", "Device": "torch.device", "c10::string_view": "str",
            "Dimname": "name", "DimnameList": "tuple of names", "ScalarList": "tuple of Scalars"}
_ALIAS = re.compile(r"\([^)]*\)")


def split_args(arg_text):
    """[(type, name, default or None, keyword_only)] of a schema's argument list; alias
    annotations (`Tensor(a!)`) dropped, as upstream's Type carries them apart."""
    args, keyword_only = [], False
    for text in re.split(r",(?![^\[]*\])", arg_text):  # not the commas of a default's list
        text = text.strip()
        if text == "*":
            keyword_only = True
        elif text:
            decl, eq, default = text.partition("=")
            typ, name = decl.strip().rsplit(" ", 1)
            args.append((_ALIAS.sub("", typ.strip()), name, default.strip() if eq else None, keyword_only))
    return args


def _list_parts(typ):
    """(element type, size or None) of a list type `int[2]`, else None."""
    m = re.fullmatch(r"(.+?)\[(\d*)\]", typ)
    return (m.group(1), m.group(2) or None) if m else None


def type_str(typ):
    """argument_type_str: the C++-flavoured type name the signatures are sorted and parsed by."""
    if typ.endswith("?"):
        return type_str(typ[:-1]) + "?"
    parts = _list_parts(typ)
    if parts:
        elem, size = parts
        sized = f"[{size}]" if size else ""
        names = {"int": "IntArrayRef", "SymInt": "SymIntArrayRef", "Tensor": "TensorList", "Scalar": "ScalarList"}
        if elem == "bool":
            return f"::std::array<bool,{size}>"
        if elem in names:
            return names[elem] + sized
        if elem == "Tensor?":
            return "c10::List<::std::optional<Tensor>>"
        return f"ArrayRef<{type_str(elem)}>"
    return {"int": "int64_t", "float": "double", "str": "c10::string_view"}.get(typ, typ)


def _cpp_default(default, typ):
    """default_expr: the C++ spelling of a schema default."""
    if default == "None" and typ == "Tensor?":
        return "{}"
    if typ.rstrip("?") == "str" and len(default) >= 2 and default[0] == default[-1] == "'":
        return '"' + default[1:-1].replace('"', '\\"') + '"'
    if typ.endswith("?"):
        return "::std::nullopt" if default == "None" else _cpp_default(default, typ[:-1])
    if _list_parts(typ) and default.startswith("[") and default.endswith("]"):
        return "{" + default[1:-1] + "}"
    return _JIT_TO_CPP_DEFAULT.get(default, default)


def _python_default(default, typ):
    """The default as the signature string writes it (pythonify_default, then argument_str's
    spelling of the empty ones as None)."""
    text = _cpp_default(default, typ)
    if text in ("true", "false"):
        text = str(text == "true")
    else:
        for convert in (int, float):
            try:
                text = str(convert(text))
                break
            except ValueError:
                pass
    return {"nullptr": "None", "::std::nullopt": "None", "std::nullopt": "None", "{}": "None"}.get(text, text)


class PythonSignature:
    """One overload as Python sees it: its arguments (self dropped from a method's), its out=
    argument where the op has an out= overload of the same arguments, and the deprecated
    signatures' call of the op they stand for."""

    def __init__(self, name, arg_text, method, n_outs=0, deprecated_call=None):
        self.name = name
        args = split_args(arg_text)
        if method:
            args = [a for a in args if not (a[1] == "self" and a[0].startswith("Tensor"))]
        self.args = args
        self.method = method
        self.n_outs = n_outs
        self.deprecated_call = deprecated_call
        self.arg_text = arg_text

    def _formals(self, spell):
        formals, positional = [], 0
        for typ, name, default, keyword_only in self.args:
            formals.append(spell(typ, self._name(typ, name), default))
            positional += not keyword_only
        if self.n_outs:
            out_type = "Tensor" if self.n_outs == 1 else f"Tensor[{self.n_outs}]"
            formals.append(spell(out_type, "out", "None"))
        if len(formals) > positional:
            formals.insert(positional, "*")
        return formals

    def _name(self, typ, name):
        # s/self/input/ outside method bindings (argument_str)
        return "input" if name == "self" and type_str(typ) in ("Tensor", "Number") and not self.method else name

    def signature_str(self):
        """PythonSignature.signature_str: what torch's parser is handed (and sorts by)."""
        def spell(typ, name, default):
            text = f"{type_str(typ)} {name}"
            return text if default is None else f"{text}={_python_default(default, typ)}"
        return f"{self.name}({', '.join(self._formals(spell))})"

    def display(self):
        """FunctionSignature::toString: the signature in torch's messages."""
        def spell(typ, name, default):
            base = re.sub(r"\[\d*\]$", "", type_str(typ).rstrip("?"))
            text = f"{_DISPLAY.get(base, base)} {name}"
            return text if default is None else f"{text} = {_python_default(default, typ)}"
        return "(" + ", ".join(self._formals(spell)) + ")"

    def parse_text(self):
        """The argument list torchlite's parser reads (python_arg_parser._Param): a method's
        without self, out= included."""
        formals, keyword_only = [], False
        for typ, name, default, kw in self.args:
            if kw and not keyword_only:
                formals.append("*")
                keyword_only = True
            formals.append(f"{typ} {name}" + ("" if default is None else f"={default}"))
        if self.n_outs:
            formals += [] if keyword_only else ["*"]
            formals.append("Tensor? out=None" if self.n_outs == 1 else "Tensor[]? out=None")
        return ", ".join(formals)

    def input_types(self):
        return [typ for typ, _, _, _ in self.args]


def _is_arg_smaller(t1, t2):
    return (t1 == "Scalar" and t2 == "Tensor" or t1 == "Scalar?" and t2 == "Tensor?"
            or t1 == "int[]" and t2 in ("int", "int?")
            or t1 == "Tensor[]" and "[]" in t2
            or t1 == "SymInt[]" and t2 == "int[]"
            or t1 in ("SymInt", "int") and t2 == "Tensor")


def _is_smaller(s1, s2):
    """s1 < s2 in sort_overloads' partial order: s1 is tried after s2."""
    a1, a2 = s1.input_types(), s2.input_types()
    if len(a1) != len(a2):
        return False
    equal = a1 == a2
    return not equal and all(t1 == t2 or _is_arg_smaller(t1, t2) for t1, t2 in zip(a1, a2, strict=True))


def sort_overloads(signatures):
    """sort_overloads: by signature string, then a topological order of the partial order above."""
    ordered = sorted(signatures, key=PythonSignature.signature_str)
    larger_than = {i: {j for j, s2 in enumerate(ordered) if _is_smaller(s1, s2)} for i, s1 in enumerate(ordered)}
    larger_than = {i: larger for i, larger in larger_than.items() if larger}
    result = [i for i in range(len(ordered)) if i not in larger_than]
    for i in result:  # grows to every index
        for j in sorted(larger_than):
            larger_than[j].discard(i)
            if not larger_than[j]:
                del larger_than[j]
                result.append(j)
    return [ordered[i] for i in result]


def group_overloads(name, functional, out_schemas, method, deprecated=()):
    """The Python signatures of op `name`: each functional overload (arg text) with the out=
    argument of the out overload of the same arguments, sorted as torch's parser tries them, then
    the deprecated ones (hidden: tried last, never listed)."""
    outs = {}
    for text in out_schemas:
        args = [a for a in re.split(r",(?![^\[]*\])", text) if a.strip()]
        kept = [a for a in args if "!" not in a]
        n_outs = len(args) - len(kept)
        while kept and kept[-1].strip() == "*":
            kept.pop()
        outs[_key(",".join(kept))] = n_outs
    # Dimname overloads are not bound in Python (torch 2.13 parses `dim` as an int there)
    signatures = [PythonSignature(name, text, method, 0 if method else outs.get(_key(text), 0)) for text in functional
                  if "Dimname" not in text]
    keys = [_key(s.arg_text) for s in signatures]
    if len(set(keys)) != len(keys):
        raise ValueError(f"{name}: a duplicated function definition (two overloads of the same arguments)")
    hidden = [PythonSignature(name, text, method, 0 if method else n_outs, call) for text, n_outs, call in deprecated]
    return sort_overloads(signatures) + hidden


def _key(arg_text):
    return tuple(split_args(arg_text))
