"""Part 1 of seed 000: recurrent networks. h_t decay, the pulse echo, the adding problem, the training
race, and inside the trained LSTM."""

from seqanim import Part

PART = Part(
    "Recurrent neural networks",
    order=1,
    scenes=("hidden_state_dynamics", "echo_of_a_pulse", "adding_problem", "training_race", "inside_the_lstm"),
)
