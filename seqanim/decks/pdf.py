"""The PDF handout: one page per slide with its last frame, what it is, and its speaker notes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from seqanim.decks.plan import DeckPlan
from seqanim.decks.video import last_frame
from seqanim.files import atomic_output
from seqanim.workspace import current


def export_pdf(plan: DeckPlan, presentations: list[Any], *, notes: bool) -> Path:
    """One A4-landscape page per slide: the slide's last frame, what it is, and (with `notes`) its notes."""
    import textwrap

    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt
    from matplotlib.backends.backend_pdf import PdfPages

    path = current().slides(plan.quality) / f"{plan.deck}.pdf"
    path.parent.mkdir(parents=True, exist_ok=True)
    pages = [
        (entry, k, presentation, slide)
        for entry, presentation in zip(plan.entries, presentations)
        for k, slide in enumerate(presentation.slides, start=1)
    ]
    width, height = 11.69, 8.27
    with atomic_output(path) as tmp:
        metadata = {"Title": plan.title, "Creator": "seqanim", "CreationDate": None}
        with PdfPages(tmp, metadata=metadata) as pdf:
            for number, (entry, k, presentation, slide) in enumerate(pages, start=1):
                figure = plt.figure(figsize=(width, height))
                figure.text(0.04, 0.955, plan.title, fontsize=10, color="#555555", va="top", parse_math=False)
                figure.text(0.96, 0.955, f"{number} / {len(pages)}", fontsize=10, color="#555555", va="top", ha="right")
                caption = (
                    entry.label
                    if len(presentation.slides) == 1
                    else f"{entry.label}, slide {k} of {len(presentation.slides)}"
                )
                figure.text(0.04, 0.92, caption, fontsize=15, weight="bold", va="top", parse_math=False)
                image = last_frame(slide.file)
                aspect = image.shape[0] / image.shape[1]
                image_width = 0.92 if not notes else 0.72
                image_height = image_width * width * aspect / height
                left, top = (1 - image_width) / 2, 0.86
                axes = figure.add_axes((left, top - image_height, image_width, image_height))
                axes.imshow(image, interpolation="none")  # embedded at its own resolution
                axes.set_axis_off()
                if notes and slide.notes:
                    # About 100 characters of 11 pt text fit under the still; notes start at its left edge.
                    wrapped = "\n".join(
                        textwrap.fill(line, 100, break_on_hyphens=False, break_long_words=False)
                        for line in slide.notes.splitlines()
                        if line.strip()
                    )
                    figure.text(
                        left,
                        top - image_height - 0.04,
                        wrapped,
                        fontsize=11,
                        va="top",
                        parse_math=False,
                        linespacing=1.5,
                    )
                pdf.savefig(figure)
                plt.close(figure)
    return path
