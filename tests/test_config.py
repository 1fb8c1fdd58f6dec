"""lecture.toml: documented, validated, and the parameter models' defaults are the notebooks' own values."""

from __future__ import annotations

import json
import re

import pytest

from seqanim.lecture import defaults, registry
from seqanim.lecture.config import Lecture, validate
from seqanim.workspace import REPOSITORY, current

SEEDS = REPOSITORY / "seeds"  # the two notebooks the lecture is made from


def cell(notebook: str, cell_id: str) -> str:
    cells = json.loads((SEEDS / notebook).read_text())["cells"]
    return next("".join(c["source"]) for c in cells if c.get("id") == cell_id)


def model_defaults() -> Lecture:
    """Every table at its model's defaults (what an empty lecture.toml gives), whatever lecture.toml says now."""
    return validate({})


def test_lecture_toml_names_every_key_with_its_comment() -> None:
    """lecture.toml spells out every key of every table, each with the comment its model gives it."""
    assert defaults.problems(current().config) == []


def test_the_defaults_file_is_written_from_the_models() -> None:
    """`seqanim config --defaults` is a valid lecture.toml that validates to the models' defaults."""
    import tomllib

    text = defaults.render()
    assert validate(tomllib.loads(text)) == model_defaults()
    assert all(
        re.match(r"^[A-Za-z_]+ = .+ # \S", line) for line in text.splitlines() if re.match(r"^[A-Za-z_]+ =", line)
    )
    experiments = [line.strip("[]") for line in text.splitlines() if line.startswith("[")][
        : len(registry.experiments())
    ]
    assert set(experiments) == set(registry.experiments())


def test_a_missing_key_or_comment_is_named(tmp_path) -> None:  # noqa: ANN001
    text = current().config.read_text()
    broken = tmp_path / "lecture.toml"
    broken.write_text(
        re.sub(
            r"^hidden = 64 .*$", "hidden = 64", text.replace("\nclip = 1.0", "\n#clip", 1), count=1, flags=re.MULTILINE
        )
    )
    found = defaults.problems(broken)
    assert "[adding] clip is missing (its default: `seqanim config --defaults`)" in found
    assert "[adding] hidden: the comment should read '# hidden units of every recurrent cell'" in found


NOTEBOOK_000 = "000_6ad51b100fcd38b8.txt"


@pytest.mark.parametrize(
    ("cell_id", "pattern", "getter"),
    [
        ("rnn2", r"N, T = (\d+), (\d+)", lambda lecture: (lecture.linear_rnn.size, lecture.linear_rnn.steps)),
        ("rnn2", r"for rho in \[([\d., ]+)\]", lambda lecture: lecture.linear_rnn.rhos),
        (
            "rnn6",
            r"def train\(kind, T=(\d+), iters=(\d+), B=(\d+), lr=([\de.-]+), seed=(\d+)\)",
            lambda lecture: (
                lecture.adding.T,
                lecture.adding.iters,
                lecture.adding.batch,
                lecture.adding.lr,
                lecture.adding.seed,
            ),
        ),
        ("rnn6", r"adding_batch\(512, T, seed=(\d+)\)", lambda lecture: (lecture.adding.test_seed,)),
        ("rnn8", r"t1, t2 = (\d+), (\d+)", lambda lecture: tuple(lecture.lstm_inside.markers)),
        (
            "at2",
            r"V, Ls, BOS = (\d+), (\d+), \d+",
            lambda lecture: (lecture.seq2seq_reverse.vocab, lecture.seq2seq_reverse.length),
        ),
        ("at2", r"range\((\d+)\)", lambda lecture: (lecture.seq2seq_reverse.iters,)),
        (
            "at4",
            r"V, Ls, BOS = (\d+), (\d+), \d+",
            lambda lecture: (lecture.seq2seq_sort.vocab, lecture.seq2seq_sort.length),
        ),
        ("at4", r"for it in range\((\d+)\)", lambda lecture: (lecture.seq2seq_sort.iters,)),
        (
            "tf2",
            r"NK, NV, Li = (\d+), (\d+), (\d+)",
            lambda lecture: (lecture.lookup.n_keys, lecture.lookup.n_values, lecture.lookup.items),
        ),
        ("tf8", r"K, N = (\d+), (\d+)", lambda lecture: (lecture.groupby.n_keys, lecture.groupby.length)),
        ("tf4", r"d_model, L = (\d+), (\d+)", lambda lecture: (lecture.positional.d_model, lecture.positional.length)),
        ("tf10", r"d, L = (\d+), (\d+)", lambda lecture: (lecture.rope.d, lecture.rope.length)),
        ("tf6", r"nkeys, nsamp = (\d+), (\d+)", lambda lecture: (lecture.scaling.n_keys, lecture.scaling.n_samples)),
        ("tf6", r"dims = \[([\d, ]+)\]", lambda lecture: lecture.scaling.dims),
        ("rnn2", r"ang = 2\*math.pi/(\d+)", lambda lecture: (lecture.linear_rnn.echo_angle_divisor,)),
        ("rnn2", r'\("a",([\d.]+),.*\("b",([\d.]+),.*\("c",([\d.]+),', lambda lecture: lecture.linear_rnn.echo_rhos),
        ("rnn4", r"adding_batch\(1, 40, seed=(\d+)\)", lambda lecture: (lecture.adding.example_seed,)),
        (
            "rnn6",
            r"nn.Module\):\n    def __init__\(self, kind, hidden=(\d+)\)",
            lambda lecture: (lecture.adding.hidden,),
        ),
        ("rnn8", r"torch.manual_seed\((\d+)\); xe", lambda lecture: (lecture.lstm_inside.example_seed,)),
        (
            "at2",
            r"def __init__\(s, h=(\d+), e=(\d+)\)",
            lambda lecture: (lecture.seq2seq_reverse.hidden, lecture.seq2seq_reverse.embed),
        ),
        ("at2", r"def __init__\(s, h, a=(\d+)\)", lambda lecture: (lecture.seq2seq_reverse.attn,)),
        (
            "at2",
            r"torch.manual_seed\((\d+)\); m = Seq2Seq\(\); opt = torch.optim.Adam\(m.parameters\(\), ([\de.-]+)\)",
            lambda lecture: (lecture.seq2seq_reverse.seed, lecture.seq2seq_reverse.lr),
        ),
        ("at2", r"rev_batch\((\d+)\); lo", lambda lecture: (lecture.seq2seq_reverse.batch,)),
        ("at2", r"torch.manual_seed\((\d+)\); s1, t1", lambda lecture: (lecture.seq2seq_reverse.example_seed,)),
        (
            "at4",
            r"torch.manual_seed\((\d+)\); m = Seq2Seq\(\); opt = torch.optim.Adam\(m.parameters\(\), ([\de.-]+)\)",
            lambda lecture: (lecture.seq2seq_sort.seed, lecture.seq2seq_sort.lr),
        ),
        ("at4", r"sort_batch\((\d+)\); lo", lambda lecture: (lecture.seq2seq_sort.batch,)),
        ("at4", r"torch.manual_seed\((\d+)\); s1, t1", lambda lecture: (lecture.seq2seq_sort.example_seed,)),
        ("tf2", r"def __init__\(s, d=(\d+)\)", lambda lecture: (lecture.lookup.d,)),
        (
            "tf2",
            r"torch.manual_seed\((\d+)\); ml = Lookup\(\); opt = torch.optim.Adam\(ml.parameters\(\), ([\de.-]+)\)",
            lambda lecture: (lecture.lookup.seed, lecture.lookup.lr),
        ),
        (
            "tf2",
            r"for it in range\((\d+)\):\n    keys, vals, qkey, ans = lookup_batch\((\d+)\)",
            lambda lecture: (lecture.lookup.iters, lecture.lookup.batch),
        ),
        (
            "tf2",
            r"torch.manual_seed\((\d+)\); keys, vals, qkey, ans = lookup_batch\(1\)",
            lambda lecture: (lecture.lookup.example_seed,),
        ),
        ("tf8", r"def __init__\(s, d=(\d+)\)", lambda lecture: (lecture.groupby.d,)),
        (
            "tf8",
            r"torch.manual_seed\((\d+)\); g = GroupAttn\(\); opt = torch.optim.Adam\(g.parameters\(\), ([\de.-]+)\)",
            lambda lecture: (lecture.groupby.seed, lecture.groupby.lr),
        ),
        (
            "tf8",
            r"for it in range\((\d+)\):\n    keys, vals, tgt = grp_batch\((\d+)\)",
            lambda lecture: (lecture.groupby.iters, lecture.groupby.batch),
        ),
        (
            "tf8",
            r"torch.manual_seed\((\d+)\); keys, vals, tgt = grp_batch\(1\)",
            lambda lecture: (lecture.groupby.example_seed,),
        ),
    ],
)
def test_defaults_reproduce_notebook_000(cell_id: str, pattern: str, getter) -> None:  # noqa: ANN001
    match = re.search(pattern, cell(NOTEBOOK_000, cell_id))
    assert match, f"{cell_id}: {pattern} not found in the notebook"
    numbers = [float(x) for group in match.groups() for x in group.split(",")]
    assert numbers == [float(v) for v in getter(model_defaults())]


def test_defaults_reproduce_notebook_003() -> None:
    source = cell("003_48cf20683bbc56a4.txt", "cell-006")
    walkthrough = model_defaults().qkv_walkthrough
    assert "Q = np.array([[1.,0.]])" in source and walkthrough.query == [1.0, 0.0]
    assert "K = np.array([[1.,0.],[0.,1.],[1.,1.]])" in source and walkthrough.keys == [
        [1.0, 0.0],
        [0.0, 1.0],
        [1.0, 1.0],
    ]
    assert "V = np.array([[10.,0.],[0.,10.],[10.,10.]])" in source and walkthrough.values == [
        [10.0, 0.0],
        [0.0, 10.0],
        [10.0, 10.0],
    ]
    assert "is_real_key = np.array([True,True,False])" in cell("003_48cf20683bbc56a4.txt", "cell-024")
    assert walkthrough.is_real_key == [True, True, False]


def test_the_variants_the_readme_and_lecture_toml_show_are_valid() -> None:
    """A lecturer copies the `[variants]` example of the README (or uncomments lecture.toml's): each value must
    pass the checks across tables too (RoPE's drawn pairs fit in d; the LSTM's markers fit in T)."""
    import tomllib

    from seqanim.lecture.variants import declared

    readme = (REPOSITORY / "README.md").read_text()
    examples = [block for block in re.findall(r"```toml\n(.*?)```", readme, re.S) if "[variants]" in block]
    commented = re.findall(r"^# (adding\.T = \[[^\]]*\])", current().config.read_text(), re.M)
    examples += [f"[variants]\n{line}\n" for line in commented]
    assert len(examples) == 2, examples
    for example in examples:
        with_variants = validate({"variants": tomllib.loads(example)["variants"]})
        values = {variant.setting for variant in declared(with_variants)}  # each value validated as --set does
        assert len(values) >= 3, (example, values)
