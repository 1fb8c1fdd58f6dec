"""`seqanim`: build, inspect and present the lecture.

    seqanim list                         the graph: experiments, scenes, decks, and what is stale
    seqanim build [--dry-run] [-j N]     everything that is out of date
    seqanim precompute [NAME...]         experiments -> data/
    seqanim render [SCENE...]            scenes -> renders/<q>/<Scene>.mp4 + slides/<q>/
    seqanim slides [DECK...]             decks -> slides/<q>/<deck>.html|pdf|pptx, renders/<q>/<deck>.mp4
    seqanim present [DECK]               the Qt presenter
    seqanim clean                        remove generated output and the cache
    seqanim config [--defaults|--check]  lecture.toml from the parameter models
    seqanim new experiment|scene NAME    a working skeleton to extend the lecture

Every command takes `--config FILE` and `--set section.key=value` (repeatable).
"""

from __future__ import annotations

import functools
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from seqanim.decks.plan import deck_names, deck_scenes
from seqanim.engine import cluster, graph
from seqanim.engine.code import forget_code
from seqanim.errors import BuildLocked, ConfigError, SeqanimError
from seqanim.files import FULL, disk_full
from seqanim.lecture import registry
from seqanim.lecture.config import CHECK, QUALITIES, Lecture, load
from seqanim.workspace import ENGINE, current

QUALITY_CHOICES = list(QUALITIES)
console = Console(stderr=True)


config_option = click.option(
    "--config", "config_path", type=click.Path(path_type=Path), default=None,
    help="Parameters file (default: lecture.toml).",
)  # fmt: skip


def lecture_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """--config and --set on every command; the lecture is loaded and validated before any work."""

    @config_option
    @click.option(
        "--set", "overrides", multiple=True, metavar="SECTION.KEY=VALUE", help="Override one parameter for this run."
    )
    @functools.wraps(command)
    def wrapper(*args: Any, config_path: Path | None, overrides: tuple[str, ...], **kwargs: Any) -> Any:
        return command(*args, lecture=load(config_path, overrides), **kwargs)

    return wrapper


quality_option = click.option(
    "--quality", "-q", type=click.Choice(QUALITY_CHOICES), default=None,
    help="Render quality (default: [render] quality; check: no frames, every scene's code, words and layout).",
)  # fmt: skip
jobs_option = click.option(
    "-j", "--jobs", type=click.IntRange(min=0), default=None,
    help="Stages run at once (default: [render] jobs; 0 = all cores).",
)  # fmt: skip


def _scheduler_address(context: click.Context, parameter: click.Parameter, value: str | None) -> str | None:
    from pydantic import ValidationError

    from seqanim.lecture.config import Build

    if value is not None and Build.model_fields["scheduler"].default != value:
        try:
            Build(scheduler=value)
        except ValidationError as error:
            raise click.BadParameter(error.errors()[0]["msg"].removeprefix("Value error, ")) from None
    return value


scheduler_option = click.option(
    "--scheduler", metavar="ADDRESS", default=None, callback=_scheduler_address,
    help="A running Dask scheduler to send the stages to, e.g. tcp://10.0.0.5:8786 (default: [build] scheduler).",
)  # fmt: skip


def _jobs(lecture: Lecture, jobs: int | None) -> int:
    chosen = lecture.render.jobs if jobs is None else jobs
    return chosen or os.cpu_count() or 1


def _run(
    lecture: Lecture,
    quality: str,
    *,
    dry_run: bool = False,
    jobs: int | None = None,
    scheduler: str | None = None,
    explicit: set[str] = frozenset(),
    **targets: Any,
) -> None:  # type: ignore[assignment]
    from seqanim.engine.build import build_lock, execute

    stages = graph.plan(lecture, quality, **targets)

    def pending() -> dict[str, str]:
        todo = graph.pending(stages)
        for stage_id in explicit:  # a named stage whose output was damaged is rebuilt on request
            if stage_id in stages and stage_id not in todo and graph.tampered(stages[stage_id], graph.read_state()):
                todo[stage_id] = "output damaged"
        return todo

    todo = pending()
    if dry_run:
        for stage_id, why in todo.items():
            click.echo(f"would run {stage_id:<40} because {why}")
        click.echo(f"{len(todo)} of {len(stages)} stages would run")
        return
    if not todo:
        console.print(f"up to date ({len(stages)} stages)")
        return
    with build_lock():
        todo = pending()  # again, under the lock: a build that held it until now may have done part of it
        outcome = execute(
            lecture, stages, todo, jobs=_jobs(lecture, jobs), console=console, explicit=explicit, scheduler=scheduler
        )
    if outcome.failed:  # one line per failure, nothing else: the line names the problem and the fix
        for stage_id, message in outcome.failed.items():
            click.echo(f"error: {stage_id}: {message}", err=True)
        raise SystemExit(2)
    _warnings(stages, outcome.ran)
    console.print(f"ran {len(outcome.ran)}, restored {len(outcome.restored)} from cache")


def _warnings(stages: dict[str, graph.Stage], ran: list[str]) -> None:
    """One line for each scene that ran whose layout broke (a value the scene's layout was not made for), and
    each warning of the narrations that ran (a recorded slide's missing file)."""
    import json

    for stage_id in ran:
        stage = stages[stage_id]
        if stage.kind == "scene":
            report = next(path for path in stage.outputs if path.name.endswith(".report.json"))
            problems = json.loads(report.read_text())["layout_violations"]
            if problems:
                click.echo(
                    f"warning: scene {stage.title.removeprefix('scene ')}: {len(problems)} layout problems at these "
                    f"values, the first: {problems[0]}; {current().label(report)} lists them",
                    err=True,
                )
        if stage.kind == "narration":
            timing = next(path for path in stage.outputs if path.name.endswith(".narration.json"))
            for warning in json.loads(timing.read_text()).get("warnings", []):
                click.echo(f"warning: {warning}", err=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """Animated lecture on sequence models: precompute, render, export and present."""


@cli.command("list")
@lecture_options
@quality_option
def list_command(lecture: Lecture, quality: str | None) -> None:
    """Show experiments, scenes and decks, what each depends on, and whether it is up to date."""
    quality = quality or lecture.render.quality
    stages = graph.plan(lecture, quality, variants=True)
    todo = graph.pending(stages)
    table = Table(title=f"seqanim lecture ({quality} quality)")
    for column in ("stage", "name", "depends on", "status"):
        table.add_column(column)
    for stage in stages.values():
        deps = ", ".join(dep.split(":")[-1] for dep in stage.deps) or "-"
        status = f"[yellow]stale: {todo[stage.id]}" if stage.id in todo else "[green]up to date"
        table.add_row(stage.kind, stage.title.removeprefix(f"{stage.kind} "), deps, status)
    Console().print(table)


@cli.command()
@lecture_options
@quality_option
@jobs_option
@scheduler_option
@click.option(
    "--dry-run", "-n", is_flag=True, help="Print the stages that would run, with the reason, and run nothing."
)
def build(lecture: Lecture, quality: str | None, jobs: int | None, scheduler: str | None, dry_run: bool) -> None:
    """Run every stage that is out of date: precompute, render, decks and the [variants]' scenes."""
    from seqanim.engine.build import build_lock
    from seqanim.present import variants

    quality = quality or lecture.render.quality
    _run(lecture, quality, dry_run=dry_run, jobs=jobs, scheduler=scheduler, variants=True)
    if quality != CHECK and not dry_run:  # at check, no videos: no variant decks to switch
        with build_lock():
            variants.write_decks(lecture, quality)


@cli.command()
@lecture_options
@jobs_option
@scheduler_option
@click.option("--dry-run", "-n", is_flag=True)
@click.argument("names", nargs=-1)
def precompute(
    lecture: Lecture, jobs: int | None, scheduler: str | None, dry_run: bool, names: tuple[str, ...]
) -> None:
    """Run experiments (default: all) and write data/<name>.npz."""
    selected = [registry.experiment(n).name for n in names] or list(registry.experiments())
    _run(
        lecture,
        lecture.render.quality,
        dry_run=dry_run,
        jobs=jobs,
        scheduler=scheduler,
        experiments=selected,
        explicit={f"experiment:{n}" for n in names},
    )


@cli.command()
@lecture_options
@quality_option
@jobs_option
@scheduler_option
@click.option("--dry-run", "-n", is_flag=True)
@click.option("--narrated", is_flag=True, help="Also make each scene's narrated cut (<Scene>.narrated.mp4).")
@click.argument("scenes", nargs=-1)
def render(
    lecture: Lecture,
    quality: str | None,
    jobs: int | None,
    scheduler: str | None,
    dry_run: bool,
    narrated: bool,
    scenes: tuple[str, ...],
) -> None:
    """Render scenes (default: all) to renders/<quality>/<Scene>.mp4 and slides/<quality>/."""
    quality = quality or lecture.render.quality
    selected = [registry.scene(s).name for s in scenes] or list(registry.scenes())
    explicit = {f"scene:{quality}:{s}" for s in scenes}
    if narrated:
        explicit |= {f"narration:{quality}:{s}" for s in scenes}
    _run(
        lecture, quality, dry_run=dry_run, jobs=jobs, scheduler=scheduler, scenes=selected,
        narrations=selected if narrated else None, explicit=explicit,
    )  # fmt: skip


@cli.command()
@lecture_options
@quality_option
@jobs_option
@scheduler_option
@click.option("--dry-run", "-n", is_flag=True)
@click.argument("decks", nargs=-1)
def slides(
    lecture: Lecture,
    quality: str | None,
    jobs: int | None,
    scheduler: str | None,
    dry_run: bool,
    decks: tuple[str, ...],
) -> None:
    """Export decks (default: all): offline HTML, PDF handout, PPTX and the joined video."""
    quality = quality or lecture.render.quality
    for deck in decks:
        deck_scenes(lecture, deck)  # unknown deck: one-line error before any work
    selected = list(decks) or deck_names(lecture)
    explicit = {f"deck:{quality}:{d}" for d in decks}
    _run(lecture, quality, dry_run=dry_run, jobs=jobs, scheduler=scheduler, decks=selected, explicit=explicit)


@cli.command()
@lecture_options
@quality_option
@click.option("--fullscreen", is_flag=True, help="Start fullscreen.")
@click.option("--screen", type=int, default=None, help="Screen number for the presentation window.")
@click.option("--start-at", type=int, default=None, help="Slide number to start at.")
@click.option("--browser", is_flag=True, help="Open the offline HTML deck in the default browser instead.")
@click.option(
    "--variant", metavar="KEY=VALUE", default=None,
    help="Show this [variants] value, e.g. adding.T=80 (the HTML deck switches live: <deck>.variants.html).",
)  # fmt: skip
@click.argument("deck", default="full")
def present(
    lecture: Lecture,
    quality: str | None,
    fullscreen: bool,
    screen: int | None,
    start_at: int | None,
    browser: bool,
    variant: str | None,
    deck: str,
) -> None:
    """Present DECK (default: full) in manim-slides' Qt presenter, building what is missing first."""
    from seqanim.engine.build import build_lock
    from seqanim.lecture.variants import named
    from seqanim.present import qt as presenter
    from seqanim.present import variants

    quality = quality or lecture.render.quality
    deck_scenes(lecture, deck)
    chosen = named(lecture, variant) if variant else None
    if not browser:
        presenter.preflight(deck, quality)  # before any build: a missing library fails in a second, not minutes
    _run(lecture, quality, decks=[deck], variants=chosen is not None)
    if chosen is not None:
        with build_lock():
            variants.write_decks(lecture, quality)
    if browser:
        console.print(f"opened {current().label(presenter.open_in_browser(deck, quality))} in the browser")
        return
    raise SystemExit(
        presenter.present(
            lecture, deck, quality, fullscreen=fullscreen, screen=screen, start_at=start_at, variant=chosen
        )
    )


@cli.command()
@click.option("--cache-only", is_flag=True, help="Empty the cache but keep data/, renders/ and slides/.")
def clean(cache_only: bool) -> None:
    """Remove generated output (data/, renders/, slides/) and the build cache."""
    import shutil

    workspace = current()
    shutil.rmtree(workspace.cache, ignore_errors=True)
    shutil.rmtree(workspace.state_dir / "voice", ignore_errors=True)  # the narration clips (seqanim.publish.voice)
    if cache_only:
        console.print("cache emptied")
        return
    for folder in workspace.generated:
        for item in folder.iterdir() if folder.exists() else []:
            if item.name == "README.md":
                continue
            shutil.rmtree(item) if item.is_dir() else item.unlink()
    shutil.rmtree(workspace.state_dir, ignore_errors=True)
    console.print("removed data/, renders/, slides/ outputs, the cache and the build state")


@cli.command()
@click.option("--interval", type=float, default=1.0, help="Seconds between checks.")
@click.option(
    "-q", "--quality", type=click.Choice(QUALITY_CHOICES), default=None,
    help="Render quality of the rebuilds (default: [render] quality; preview: 240p10, faster than low).",
)  # fmt: skip
def watch(interval: float, quality: str | None) -> None:
    """Rebuild the affected scenes whenever lecture.toml or a source file is saved (or added)."""
    import time

    workspace = current()
    folders = (workspace.scenes, workspace.precompute, ENGINE / "kit")

    def snapshot() -> dict[Path, float]:  # scenes/<part>/<scene>.py included, and files added since the start
        watched = [workspace.config, *(path for folder in folders for path in folder.rglob("*.py"))]
        return {path: path.stat().st_mtime for path in watched if path.exists()}

    seen: dict[Path, float] = {}
    locked = False
    try:
        jobs = _jobs(load(), None)
    except SeqanimError:  # said again, with the fix, at the first rebuild
        jobs = os.cpu_count() or 1
    with cluster.session(jobs):  # one local cluster for every rebuild: started once
        console.print("watching lecture.toml, scenes/, precompute/ and the kit; Ctrl-C stops")
        while True:
            now = snapshot()
            if now != seen or locked:
                seen = now
                try:
                    registry.forget()
                    forget_code()
                    fresh = load()
                    _run(fresh, quality or fresh.render.quality, scenes=list(registry.scenes()))
                    locked = False
                except BuildLocked as error:  # another build runs: say so once, and try again at the next check
                    if not locked:
                        click.echo(f"error: {error}; watch retries when it ends", err=True)
                    locked = True
                except SeqanimError as error:
                    click.echo(f"error: {error}", err=True)
                    locked = False
                except SystemExit:
                    locked = False
            time.sleep(interval)


@cli.command("config")
@click.option("--defaults", "show_defaults", is_flag=True, help="Print lecture.toml with every default and comment.")
@click.option("--check", "check", is_flag=True, help="Check that lecture.toml names every key with its comment.")
@config_option
def config_command(show_defaults: bool, check: bool, config_path: Path | None) -> None:
    """lecture.toml from the parameter models: print the defaults, or check the file against them."""
    from seqanim.lecture import defaults

    if show_defaults or not check:
        click.echo(defaults.render(), nl=False)
        return
    path = config_path or current().config
    load(path)  # values first: an invalid one is the first thing to fix
    found = defaults.problems(path)
    if found:
        raise ConfigError(f"{path.name}: {found[0]}" + (f" (and {len(found) - 1} more)" if len(found) > 1 else ""))
    console.print(f"{path.name} names every key of every table, with its comment")
    _list_untranslated(load(path))


def _list_untranslated(lecture: Lecture) -> None:
    """One line per language and part with scenes whose words it does not write yet (their captions show the
    scenes' own words)."""
    from seqanim.author.translate import untranslated

    for code in lecture.publish.languages[1:]:
        for part in registry.parts().values():
            missing = []
            for name in part.scenes:
                spec = registry.scene(name)
                scene = getattr(registry._import(f"scenes.{spec.module}"), name)
                missing += [f"{name}.{function}" for function in untranslated(scene, code)]
            if missing:
                where = current().label(registry.scene(part.scenes[0]).source.parent / f"{code}.py")
                functions = f"{len(missing)} words function{'s' * (len(missing) != 1)}"
                click.echo(f"{code}: {where} does not write {functions}: {', '.join(missing)}")


@cli.group()
def new() -> None:
    """Start a new experiment or scene from a working, tested skeleton."""


@new.command("experiment")
@click.argument("name")
def new_experiment(name: str) -> None:
    """Write precompute/NAME.py (parameters, a tiny computation, run) and add its table to lecture.toml."""
    from seqanim import scaffold

    for path in scaffold.new_experiment(current(), name):
        console.print(f"wrote {current().label(path)}")


@new.command("scene")
@click.argument("name")
@click.option("--data", "experiment", required=True, help="The experiment whose data/ the scene reads.")
@click.option("--part", required=True, help="The lecture part (deck) the scene joins, e.g. rnn.")
def new_scene(name: str, experiment: str, part: str) -> None:
    """Write scene NAME into scenes/PART.py (one slide reading EXPERIMENT, notes from its data) and its test."""
    from seqanim import scaffold

    for path in scaffold.new_scene(current(), name, experiment, part):
        console.print(f"wrote {current().label(path)}")


def main() -> None:
    try:
        cli.main(standalone_mode=False)
        # Done, and said so: a Ctrl-C from here on interrupts nothing, and must not turn a finished build
        # into a death by signal during the interpreter's exit (found by bench/faults.py).
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except SeqanimError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(error.exit_code)
    except OSError as error:  # the build's own bookkeeping (state.json, the cache) on a full disk
        if error.errno not in FULL:
            raise
        click.echo(f"error: {disk_full(error, error.filename2 or error.filename or current().state_dir)}", err=True)
        sys.exit(2)
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("interrupted; finished outputs are kept, the next build resumes", err=True)
        sys.exit(130)
    except click.ClickException as error:  # usage errors too: one line, not the usage text
        hint = " (see --help)" if isinstance(error, click.UsageError) else ""
        click.echo(f"error: {error.format_message()}{hint}", err=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
