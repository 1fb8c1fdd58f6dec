"""lecture.toml: documented, validated, and its defaults are the notebooks' own values."""

from __future__ import annotations

import json
import re
import tomllib

import pytest

from seqanim.config import DEFAULT_CONFIG, ROOT, Lecture, load

SEEDS = ROOT.parent / "shared" / "seeds"


def cell(notebook: str, cell_id: str) -> str:
    cells = json.loads((SEEDS / notebook).read_text())["cells"]
    return next("".join(c["source"]) for c in cells if c.get("id") == cell_id)


def test_every_key_has_a_comment() -> None:
    missing = []
    for number, line in enumerate(DEFAULT_CONFIG.read_text().splitlines(), 1):
        if re.match(r"^\s*[A-Za-z_]+\s*=", line) and "#" not in line:
            missing.append(f"line {number}: {line.strip()}")
    assert not missing, missing


def test_file_spells_out_every_experiment_key() -> None:
    """lecture.toml names every key of every experiment table: no parameter hides in a code default."""
    raw = tomllib.loads(DEFAULT_CONFIG.read_text())
    for section in ("linear_rnn", "adding", "lstm_inside", "seq2seq_reverse", "seq2seq_sort", "lookup", "groupby", "positional", "rope", "scaling", "qkv_walkthrough"):
        assert set(raw[section]) == set(Lecture.model_fields[section].annotation.model_fields), section


NOTEBOOK_000 = "000_6ad51b100fcd38b8.txt"


@pytest.mark.parametrize(
    ("cell_id", "pattern", "getter"),
    [
        ("rnn2", r"N, T = (\d+), (\d+)", lambda l: (l.linear_rnn.size, l.linear_rnn.steps)),
        ("rnn2", r"for rho in \[([\d., ]+)\]", lambda l: l.linear_rnn.rhos),
        ("rnn6", r"def train\(kind, T=(\d+), iters=(\d+), B=(\d+), lr=([\de.-]+), seed=(\d+)\)", lambda l: (l.adding.T, l.adding.iters, l.adding.batch, l.adding.lr, l.adding.seed)),
        ("rnn6", r"adding_batch\(512, T, seed=(\d+)\)", lambda l: (l.adding.test_seed,)),
        ("rnn8", r"t1, t2 = (\d+), (\d+)", lambda l: tuple(l.lstm_inside.markers)),
        ("at2", r"V, Ls, BOS = (\d+), (\d+), \d+", lambda l: (l.seq2seq_reverse.vocab, l.seq2seq_reverse.length)),
        ("at2", r"range\((\d+)\)", lambda l: (l.seq2seq_reverse.iters,)),
        ("at4", r"V, Ls, BOS = (\d+), (\d+), \d+", lambda l: (l.seq2seq_sort.vocab, l.seq2seq_sort.length)),
        ("at4", r"for it in range\((\d+)\)", lambda l: (l.seq2seq_sort.iters,)),
        ("tf2", r"NK, NV, Li = (\d+), (\d+), (\d+)", lambda l: (l.lookup.n_keys, l.lookup.n_values, l.lookup.items)),
        ("tf8", r"K, N = (\d+), (\d+)", lambda l: (l.groupby.n_keys, l.groupby.length)),
        ("tf4", r"d_model, L = (\d+), (\d+)", lambda l: (l.positional.d_model, l.positional.length)),
        ("tf10", r"d, L = (\d+), (\d+)", lambda l: (l.rope.d, l.rope.length)),
        ("tf6", r"nkeys, nsamp = (\d+), (\d+)", lambda l: (l.scaling.n_keys, l.scaling.n_samples)),
        ("tf6", r"dims = \[([\d, ]+)\]", lambda l: l.scaling.dims),
        ("rnn2", r"ang = 2\*math.pi/(\d+)", lambda l: (l.linear_rnn.echo_angle_divisor,)),
        ("rnn2", r'\("a",([\d.]+),.*\("b",([\d.]+),.*\("c",([\d.]+),', lambda l: l.linear_rnn.echo_rhos),
        ("rnn4", r"adding_batch\(1, 40, seed=(\d+)\)", lambda l: (l.adding.example_seed,)),
        ("rnn6", r"nn.Module\):\n    def __init__\(self, kind, hidden=(\d+)\)", lambda l: (l.adding.hidden,)),
        ("rnn8", r"torch.manual_seed\((\d+)\); xe", lambda l: (l.lstm_inside.example_seed,)),
        ("at2", r"def __init__\(s, h=(\d+), e=(\d+)\)", lambda l: (l.seq2seq_reverse.hidden, l.seq2seq_reverse.embed)),
        ("at2", r"def __init__\(s, h, a=(\d+)\)", lambda l: (l.seq2seq_reverse.attn,)),
        ("at2", r"torch.manual_seed\((\d+)\); m = Seq2Seq\(\); opt = torch.optim.Adam\(m.parameters\(\), ([\de.-]+)\)", lambda l: (l.seq2seq_reverse.seed, l.seq2seq_reverse.lr)),
        ("at2", r"rev_batch\((\d+)\); lo", lambda l: (l.seq2seq_reverse.batch,)),
        ("at2", r"torch.manual_seed\((\d+)\); s1, t1", lambda l: (l.seq2seq_reverse.example_seed,)),
        ("at4", r"torch.manual_seed\((\d+)\); m = Seq2Seq\(\); opt = torch.optim.Adam\(m.parameters\(\), ([\de.-]+)\)", lambda l: (l.seq2seq_sort.seed, l.seq2seq_sort.lr)),
        ("at4", r"sort_batch\((\d+)\); lo", lambda l: (l.seq2seq_sort.batch,)),
        ("at4", r"torch.manual_seed\((\d+)\); s1, t1", lambda l: (l.seq2seq_sort.example_seed,)),
        ("tf2", r"def __init__\(s, d=(\d+)\)", lambda l: (l.lookup.d,)),
        ("tf2", r"torch.manual_seed\((\d+)\); ml = Lookup\(\); opt = torch.optim.Adam\(ml.parameters\(\), ([\de.-]+)\)", lambda l: (l.lookup.seed, l.lookup.lr)),
        ("tf2", r"for it in range\((\d+)\):\n    keys, vals, qkey, ans = lookup_batch\((\d+)\)", lambda l: (l.lookup.iters, l.lookup.batch)),
        ("tf2", r"torch.manual_seed\((\d+)\); keys, vals, qkey, ans = lookup_batch\(1\)", lambda l: (l.lookup.example_seed,)),
        ("tf8", r"def __init__\(s, d=(\d+)\)", lambda l: (l.groupby.d,)),
        ("tf8", r"torch.manual_seed\((\d+)\); g = GroupAttn\(\); opt = torch.optim.Adam\(g.parameters\(\), ([\de.-]+)\)", lambda l: (l.groupby.seed, l.groupby.lr)),
        ("tf8", r"for it in range\((\d+)\):\n    keys, vals, tgt = grp_batch\((\d+)\)", lambda l: (l.groupby.iters, l.groupby.batch)),
        ("tf8", r"torch.manual_seed\((\d+)\); keys, vals, tgt = grp_batch\(1\)", lambda l: (l.groupby.example_seed,)),
    ],
)
def test_defaults_reproduce_notebook_000(cell_id: str, pattern: str, getter) -> None:  # noqa: ANN001
    match = re.search(pattern, cell(NOTEBOOK_000, cell_id))
    assert match, f"{cell_id}: {pattern} not found in the notebook"
    numbers = [float(x) for group in match.groups() for x in group.split(",")]
    assert numbers == [float(v) for v in getter(load())]


def test_defaults_reproduce_notebook_003() -> None:
    source = cell("003_48cf20683bbc56a4.txt", "cell-006")
    walkthrough = load().qkv_walkthrough
    assert "Q = np.array([[1.,0.]])" in source and walkthrough.query == [1.0, 0.0]
    assert "K = np.array([[1.,0.],[0.,1.],[1.,1.]])" in source and walkthrough.keys == [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    assert "V = np.array([[10.,0.],[0.,10.],[10.,10.]])" in source and walkthrough.values == [[10.0, 0.0], [0.0, 10.0], [10.0, 10.0]]
    assert "is_real_key = np.array([True,True,False])" in cell("003_48cf20683bbc56a4.txt", "cell-024")
    assert walkthrough.is_real_key == [True, True, False]
