"""Part 1 of seed 000: recurrent networks. h_t decay, the pulse echo, the adding problem, the training
race, and inside the trained LSTM."""

from __future__ import annotations

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, Create, FadeIn, Text, ValueTracker, VGroup, linear

from seqanim.kit import theme
from seqanim.kit.plots import Plot
from seqanim.kit.slide import LectureSlide


class HiddenStateDynamics(LectureSlide):
    """rnn2: ||h_t|| = rho^t; the spectral radius decides whether the signal forgets, holds or explodes."""

    data = ("linear_rnn",)

    def construct(self) -> None:
        run = self.load("linear_rnn")
        rhos, norms = run["rhos"], run["norms"]
        steps = norms.shape[1] - 1

        self.next_slide(notes=f"A linear RNN h_t = W h_(t-1) is a dynamical system. With W = rho Q, Q orthogonal, ||h_t|| = rho^t over {steps} steps.")
        self.title("A linear RNN is a dynamical system")
        low, high = np.floor(np.log10(norms.min())), np.ceil(np.log10(norms.max()))
        plot = Plot((0, steps, 10), (low, high, 1), width=7.5, height=4.6, x_label="time step t", y_label="||h_t|| (log)", log_y=True)
        plot.to_edge(LEFT, buff=0.9).shift(0.3 * DOWN)
        self.play(Create(plot), run_time=1.0)

        tracker = ValueTracker(0)
        curves = VGroup(*[plot.live_curve(np.arange(steps + 1), norm, tracker, theme.colour(i)) for i, norm in enumerate(norms)])
        legend = VGroup(*[Text(f"rho = {rho:.2f}", font=theme.font(), font_size=theme.LABEL_SIZE, color=theme.colour(i)) for i, rho in enumerate(rhos)])
        legend.arrange(DOWN, aligned_edge=LEFT).next_to(plot, RIGHT, buff=0.4)
        self.add(curves)
        self.play(FadeIn(legend))
        self.next_slide(notes="Watch each curve: below rho = 1 the signal decays geometrically, above it explodes. "
                        + "; ".join(f"rho={rho:.2f}: ||h_{steps}|| = {norm[-1]:.3g}" for rho, norm in zip(rhos, norms)))
        self.play(tracker.animate.set_value(steps), run_time=4, rate_func=linear)
        for curve in curves:
            curve.clear_updaters()
        self.next_slide(notes="Only rho = 1 keeps the norm: the spectral radius decides. This is why plain RNNs forget or explode.")
        self.play(FadeIn(self.caption("the spectral radius rho = max|eig(W)| decides", colour=theme.highlight())))
