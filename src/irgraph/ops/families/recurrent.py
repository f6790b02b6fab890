"""The recurrent family: RNN, GRU and LSTM cells (one time step) and sequences (every step, both directions).

One base holds what they share: the attributes (``hidden_size``, ``activations`` with their alphas and
betas, ``clip``), the shape rules (OpenVINO's ``cell_base_shape_infer`` and ``seq_base_shape_infer``),
the gate maths of each cell and the sequence driver (reverse, ``seq_lengths`` masking, bidirectional).

The maths follows OpenVINO's reference kernels (``rnn_cell.hpp``, ``gru_cell.hpp``, ``lstm_cell.hpp``,
``sequences.hpp``): gates are ``X*W^T + (H*R^T + B)``, clipped to ``[-clip, clip]`` when ``clip > 0``,
then activated; gate order f, i, c, o (LSTM) and z, r, h (GRU). ``hidden_size`` is not used for the
shapes (OpenVINO ignores it "for backward compatibility"); the inputs' dims are. The activations'
alphas and betas are kept and written back but unused: sigmoid, tanh and relu take none.

OpenVINO 2026.4.1 folds none of these ops; its CPU plugin computes them in f32 (f16 and bf16 inputs
too, rounded once at the end), and so does irgraph (f64 in f64).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.movement.reverse_sequence import reversal_order
from irgraph.ops.op import Op, Tolerance, attribute, check, checked, integer_values
from irgraph.ops.traits import OpTraits

Array = np.ndarray
Activation = Callable[[Array], Array]


def _sigmoid(x: Array) -> Array:
    with np.errstate(over="ignore"):  # exp(-x) overflows to inf for x << 0: 1 / inf is the right 0
        return 1 / (1 + np.exp(-x))


def _relu(x: Array) -> Array:
    return np.maximum(x, 0)


ACTIVATIONS: dict[str, Activation] = {"sigmoid": _sigmoid, "tanh": np.tanh, "relu": _relu}
"""The activations OpenVINO's reference and CPU plugin run (names compare case-insensitively, as the plugin's)."""

DIRECTIONS = ("forward", "reverse", "bidirectional")

RECURRENT_TOLERANCE = Tolerance(ulp=16, eps=16)
"""Each step sums ``input_size + hidden_size`` products per gate (BLAS and the CPU plugin sum in other
orders) and passes its rounding error on to the next step through the state. Measured against the CPU
plugin of openvino 2026.4.1 on 4200 generated configurations (values in [-1, 1], weights scaled by
1/sqrt(fan-in) as trained ones are, up to 6 steps, every activation, clip, direction): at most 2 ULP
or 2 eps; 16 leaves room. A recurrence that amplifies (unscaled weights: a relu GRU's state reached 4e6
in 5 steps) amplifies the rounding differences with it (36 ULP seen there), beyond any fixed bound."""


def activation(name: str) -> Activation:
    """The function an activation name denotes; OpError naming the three known ones otherwise."""
    return checked(ACTIVATIONS.get(name.lower()),
                   f"Activation function '{name}' is not supported: use sigmoid, tanh or relu")


def computing_dtype(array: Array) -> np.dtype:
    """f64 stays f64; every other float type computes in f32 (as OpenVINO's CPU plugin does)."""
    return np.dtype(np.float64) if array.dtype == np.float64 else np.dtype(np.float32)


def merge_element_types(inputs: Sequence[TensorType], what: str) -> ElementType:
    """The one element type of the floating-point inputs (dynamic ones merge with any)."""
    merged = ElementType.DYNAMIC
    for tensor_type in inputs:
        merged = checked(merged.merge(tensor_type.element_type), f"Element types for {what} inputs do not match. "
                         f"Got: {', '.join(str(t.element_type) for t in inputs)}")
    return merged


def _merge(current: Dim, other: Dim, message: str) -> Dim:
    return checked(current.merge(other), message)


def _divided(dim: Dim, parts: int) -> Dim | None:
    """OpenVINO's ``Dimension / n``: ``[ceil(min / n), floor(max / n)]``, None when that is empty (13 / 3)."""
    try:
        return dim.divided(parts)
    except ValueError:  # no multiple of parts inside the interval
        return None


def check_ranks(inputs: Sequence[TensorType], ranks: Sequence[int]) -> None:
    """Each input's rank (where static) as expected; OpenVINO's message otherwise."""
    for index, (tensor_type, rank) in enumerate(zip(inputs, ranks, strict=False)):
        shape = tensor_type.shape
        check(shape.rank_is_dynamic or shape.rank == rank,
              f"Shape rank of input at {index} is incompatible. Expected rank: {rank}, actual shape: {shape}.")


def dim_of(shape: Shape, index: int) -> Dim:
    """Dim ``index`` of ``shape``; ``?`` when the rank is dynamic."""
    return Dim.dynamic() if shape.rank_is_dynamic else shape[index]


# ------------------------------------------------------------------------------------ the gate maths
GATES = {"rnn": 1, "gru": 3, "lstm": 4}
"""Gate blocks in W and R per kind."""
STATES = {"rnn": 1, "gru": 1, "lstm": 2}
"""State tensors carried between steps: H; H and C for LSTM."""

Step = Callable[[Array, tuple[Array, ...], Array, Array, Array | None], tuple[Array, ...]]
"""``step(xw, states, r, b, peepholes) -> new states``, ``xw`` being X*W^T ``[batch, gates*hidden]``."""


@dataclass(frozen=True)
class Recurrent(Op):
    """Attributes and maths every RNN, GRU and LSTM op shares."""

    traits = OpTraits(calls_blas=True)

    KIND: ClassVar[str] = ""
    """``rnn``, ``gru`` or ``lstm``."""
    ACTIVATION_COUNT: ClassVar[int] = 1
    """How many activations the cell uses (f; f, g; f, g, h): more may be given, the rest are unused."""
    DEFAULT_ACTIVATIONS: ClassVar[tuple[str, ...]] = ("tanh",)
    tolerance = RECURRENT_TOLERANCE

    hidden_size: int = attribute()
    activations: tuple[str, ...] = attribute(())
    activations_alpha: tuple[float, ...] = attribute(())
    activations_beta: tuple[float, ...] = attribute(())
    clip: float = attribute(0.0)

    def __post_init__(self) -> None:
        check(self.hidden_size >= 0, f"Attribute 'hidden_size' must not be negative. Got: {self.hidden_size}")
        names = self.activations or self.DEFAULT_ACTIVATIONS
        check(len(names) >= self.ACTIVATION_COUNT,
              f"{self.title()} needs {self.ACTIVATION_COUNT} activation functions. Got: {list(names)}")
        for name in names[:self.ACTIVATION_COUNT]:
            activation(name)
        check(not np.isnan(self.clip), f"Attribute 'clip' must be a number. Got: {self.clip}")  # inf: no clip

    @property
    def gates(self) -> int:
        """Gate blocks in W and R."""
        return GATES[self.KIND]

    @property
    def states(self) -> int:
        """State tensors: 1, or 2 for LSTM."""
        return STATES[self.KIND]

    @property
    def linear_before_reset_(self) -> bool:
        """GRU's ``linear_before_reset`` (False for the others)."""
        return bool(getattr(self, "linear_before_reset", False))

    @property
    def bias_gates(self) -> int:
        """Gate blocks in B: GRU with ``linear_before_reset`` keeps the two h-gate biases apart."""
        return self.gates + (1 if self.linear_before_reset_ else 0)

    def functions(self) -> list[Activation]:
        """The activation functions in use (f, g, h)."""
        names = self.activations or self.DEFAULT_ACTIVATIONS
        return [activation(name) for name in names[:self.ACTIVATION_COUNT]]

    def _type_names(self) -> str:
        return "X, initial_hidden_state, initial_cell_state, W, R and B" if self.KIND == "lstm" \
            else "X, initial_hidden_state, W, R and B"

    def _check_weights(self, hidden: Dim, w_shape: Shape, r_shape: Shape, b_shape: Shape, gates: int,
                       ordinals: tuple[str, str, str], axis: int) -> Dim:
        """W, R (gates * hidden) and B ((gates [+ 1]) * hidden) along ``axis`` (0 for cells, 1 for sequences)."""
        if hidden.is_static:
            for name, shape, factor, ordinal in (("W", w_shape, gates, ordinals[0]), ("R", r_shape, gates, ordinals[1]),
                                                 ("B", b_shape, self.bias_gates, ordinals[2])):
                if shape.rank_is_dynamic:
                    continue
                expected = hidden.value * factor
                check(shape[axis].contains(expected),
                      f"{ordinal} dimension of {name} input shape is required to be compatible with {expected}. "
                      f"Got shape: {shape[axis]}.")
            return hidden
        for shape in (w_shape, r_shape):
            # OpenVINO's guard looks at dim 0 whichever dim it divides (num_directions for sequences)
            if not shape.rank_is_dynamic and shape[0].is_static:
                part = checked(_divided(shape[axis], gates), "Dimension `hidden_size` is not matched between inputs.")
                hidden = _merge(hidden, part, "Dimension `hidden_size` is not matched between inputs.")
        return hidden

    def make_step(self, dtype: np.dtype) -> Step:
        """The kind's step with this op's activations, clip and GRU/LSTM options bound."""
        functions = self.functions()
        clip = np.asarray(self.clip, dtype)

        def clipped(gate: Array, function: Activation) -> Array:
            if clip > 0:  # 0 and negative clips clip nothing (OpenVINO's CPU plugin; the spec asks for > 0)
                gate = np.clip(gate, -clip, clip)
            return function(gate)

        return STEP_BUILDERS[self.KIND](self, functions, clipped)


Clipped = Callable[[Array, Activation], Array]


def rnn_step(op: Recurrent, functions: list[Activation], clipped: Clipped) -> Step:
    """``H' = f(XW + (HR + B))``."""
    def step(xw: Array, states: tuple[Array, ...], r: Array, b: Array, peepholes: Array | None) -> tuple:
        (h,) = states
        return (clipped(xw + (h @ r.T + b), functions[0]),)
    return step


def gru_step(op: Recurrent, functions: list[Activation], clipped: Clipped) -> Step:
    """Gates z, r, h (``gru_cell.hpp``): ``H' = (1 - z) * h + z * H``."""
    linear = op.linear_before_reset_

    def step(xw: Array, states: tuple[Array, ...], r: Array, b: Array, peepholes: Array | None) -> tuple:
        (h,) = states
        size = h.shape[-1]
        hr = h @ r.T  # without linear_before_reset its last block goes unused: Rh multiplies r * H instead
        z = clipped(xw[:, :size] + (hr[:, :size] + b[:size]), functions[0])
        reset = clipped(xw[:, size:2 * size] + (hr[:, size:2 * size] + b[size:2 * size]), functions[0])
        if linear:  # B is [z, r, Wbh, Rbh]
            candidate = xw[:, 2 * size:] + (reset * (hr[:, 2 * size:] + b[3 * size:]) + b[2 * size:3 * size])
        else:
            candidate = xw[:, 2 * size:] + ((reset * h) @ r[2 * size:].T + b[2 * size:])
        candidate = clipped(candidate, functions[1])
        return ((1 - z) * candidate + z * h,)
    return step


def lstm_step(op: Recurrent, functions: list[Activation], clipped: Clipped) -> Step:
    """Gates f, i, c, o (``lstm_cell.hpp``); peepholes and input_forget as ``lstm_cell_v1``."""
    input_forget = bool(getattr(op, "input_forget", False))

    def step(xw: Array, states: tuple[Array, ...], r: Array, b: Array, peepholes: Array | None) -> tuple:
        h, c = states
        size = h.shape[-1]
        gates = xw + (h @ r.T + b)
        f_in, i_in = gates[:, :size], gates[:, size:2 * size]
        c_in, o_in = gates[:, 2 * size:3 * size], gates[:, 3 * size:]
        if peepholes is not None:  # LSTMCell-1: P is [f, i, o] as OpenVINO's lstm_cell_v1 splits it
            f_in = f_in + peepholes[:size] * c
            i_in = i_in + peepholes[size:2 * size] * c
        forget = clipped(f_in, functions[0])
        entry = 1 - forget if input_forget else clipped(i_in, functions[0])
        new_c = forget * c + entry * clipped(c_in, functions[1])
        if peepholes is not None:
            o_in = o_in + peepholes[2 * size:] * new_c
        out = clipped(o_in, functions[0])
        return out * functions[2](new_c), new_c  # no clip before h
    return step


STEP_BUILDERS: dict[str, Callable[[Recurrent, list[Activation], Clipped], Step]] = {
    "rnn": rnn_step, "gru": gru_step, "lstm": lstm_step}


# ------------------------------------------------------------------------------------ cells
@dataclass(frozen=True)
class RecurrentCell(Recurrent):
    """One time step: inputs X ``[batch, input_size]``, the states ``[batch, hidden_size]``, W
    ``[gates*hidden_size, input_size]``, R ``[gates*hidden_size, hidden_size]``, B ``[gates*hidden_size]``;
    outputs the new states."""

    def output_count(self, input_values: Sequence[Array | None]) -> int:
        """The new states: H, and C for LSTM."""
        return self.states

    def infer(self, inputs: Sequence[TensorType], values: Sequence[Array | None]) -> list[TensorType]:
        """OpenVINO's ``cell_base_shape_infer``: batch from X and the states, hidden_size from the states
        and R's second dim (else W's and R's first dim divided by the gate count), then W, R, B checked."""
        states = self.states
        main = inputs[:4 + states]
        element_type = merge_element_types(main, self._type_names())
        check_ranks(inputs, [2] * (1 + states) + [2, 2, 1])
        shapes = [t.shape for t in main]
        batch = dim_of(shapes[0], 0)
        for index in range(1, 1 + states):
            batch = _merge(batch, dim_of(shapes[index], 0), "Dimension `batch_size` is not matched between inputs.")
        hidden = dim_of(shapes[1], 1)
        not_matched = "Dimension `hidden_size` is not matched between inputs."
        for index in range(2, 1 + states):
            hidden = _merge(hidden, dim_of(shapes[index], 1), not_matched)
        w_shape, r_shape, b_shape = shapes[1 + states], shapes[2 + states], shapes[3 + states]
        hidden = _merge(hidden, dim_of(r_shape, 1), not_matched)
        hidden = self._check_weights(hidden, w_shape, r_shape, b_shape, self.gates, ("First", "Fisrt", "First"), 0)
        if self.KIND == "lstm" and hidden.is_dynamic:  # OpenVINO's LSTMCell (only) falls back on the attribute
            hidden = Dim.static(self.hidden_size)
        hidden = self._check_extra(hidden, inputs)
        output = TensorType(element_type, Shape((batch, hidden)))
        return [output] * states

    def _check_extra(self, hidden: Dim, inputs: Sequence[TensorType]) -> Dim:
        return hidden

    def evaluate(self, inputs: Sequence[Array]) -> list[Array]:
        """One step of the cell, in f32 (f64 for f64), rounded to the inputs' type once."""
        states = self.states
        x = inputs[0]
        w, r, b = inputs[1 + states:4 + states]
        peepholes = inputs[4 + states] if len(inputs) > 4 + states else None
        check_run_shapes(x, inputs[1:1 + states], w, r, b, self.gates, self.bias_gates, peepholes)
        dtype = computing_dtype(x)
        wide = [np.asarray(a, dtype) for a in inputs]
        step = self.make_step(dtype)
        xw = wide[0] @ wide[1 + states].T
        p = wide[4 + states] if peepholes is not None else None
        with np.errstate(over="ignore", invalid="ignore"):
            new = step(xw, tuple(wide[1:1 + states]), wide[2 + states], wide[3 + states], p)
        return [np.asarray(s).astype(x.dtype) for s in new]


def check_run_shapes(x: Array, states: Sequence[Array], w: Array, r: Array, b: Array, gates: int, bias_gates: int,
                     peepholes: Array | None) -> None:
    """The concrete shapes one step needs (shape inference lets an input_size mismatch through, as OpenVINO's)."""
    batch, hidden = states[0].shape
    check(x.shape[1] == w.shape[1],
          f"The input_size of X ({x.shape[1]}) differs from W's second dim ({w.shape[1]}): W is "
          f"[{gates}*hidden_size, input_size]")
    check(w.shape[0] == gates * hidden and r.shape == (gates * hidden, hidden) and b.shape == (bias_gates * hidden,),
          f"W, R and B must be [{gates * hidden},{x.shape[1]}], [{gates * hidden},{hidden}] and [{bias_gates * hidden}]"
          f" for hidden_size {hidden}. Got: {list(w.shape)}, {list(r.shape)}, {list(b.shape)}")
    for state in states:
        check(state.shape == (batch, hidden) and x.shape[0] == batch,
              f"X and the states must share batch_size and hidden_size. Got: {list(x.shape)}, "
              f"{[list(s.shape) for s in states]}")
    if peepholes is not None:
        check(peepholes.shape == (3 * hidden,), f"P must be [{3 * hidden}]. Got: {list(peepholes.shape)}")


# ------------------------------------------------------------------------------------ sequences
@dataclass(frozen=True)
class RecurrentSequence(Recurrent):
    """Every time step of a sequence: X ``[batch, seq_length, input_size]``, the initial states
    ``[batch, num_directions, hidden_size]``, ``seq_lengths`` ``[batch]``, W ``[num_directions,
    gates*hidden_size, input_size]``, R ``[num_directions, gates*hidden_size, hidden_size]``, B
    ``[num_directions, gates*hidden_size]``; outputs Y ``[batch, num_directions, seq_length,
    hidden_size]`` and the last states ``[batch, num_directions, hidden_size]``.

    Steps at or past a batch element's length give zeros in Y; its last states are those of step
    ``length - 1``. As OpenVINO 2026.4.1 (reference and CPU plugin) does, a length above seq_length
    gives the full Y and zero last states, and a length <= 0 zeros throughout (forward); the reverse
    direction refuses lengths outside ``[0, seq_length]`` ("Incorrect input 'seq_lengths' values!").
    """

    direction: str = attribute("forward")

    def __post_init__(self) -> None:
        super().__post_init__()
        check(self.direction.lower() in DIRECTIONS,
              f"Attribute direction must be FORWARD or REVERSE or BIDIRECTIONAL. Got: {self.direction!r}")

    @property
    def num_directions(self) -> int:
        """2 for bidirectional, else 1."""
        return 2 if self.direction.lower() == "bidirectional" else 1

    def output_count(self, input_values: Sequence[Array | None]) -> int:
        """Y and the last states."""
        return 1 + self.states

    def infer(self, inputs: Sequence[TensorType], values: Sequence[Array | None]) -> list[TensorType]:
        """OpenVINO's ``seq_base_shape_infer``: batch from X, the states and seq_lengths; hidden_size from
        the states and R; num_directions from the direction, the states, W, R and B."""
        states = self.states
        float_inputs = [inputs[0], *inputs[1:1 + states], *inputs[2 + states:5 + states]]
        element_type = merge_element_types(float_inputs, self._type_names())
        lengths_type = inputs[1 + states].element_type
        check(lengths_type.is_dynamic or lengths_type.is_integral or lengths_type.is_real,
              f"Element type of the seq_lengths input must be numeric. Got: {lengths_type}")
        check_ranks(inputs, [3] * (1 + states) + [1, 3, 3, 2])
        shapes = [t.shape for t in inputs]
        batch_message = "Dimension `batch_size` is not matched between inputs."
        batch = dim_of(shapes[0], 0)
        for index in range(1, 2 + states):
            batch = _merge(batch, dim_of(shapes[index], 0), batch_message)
        not_matched = "Dimension `hidden_size` is not matched between inputs."
        hidden = dim_of(shapes[1], 2)
        for index in range(2, 1 + states):
            hidden = _merge(hidden, dim_of(shapes[index], 2), not_matched)
        w_shape, r_shape, b_shape = shapes[2 + states], shapes[3 + states], shapes[4 + states]
        hidden = _merge(hidden, dim_of(r_shape, 2), not_matched)
        directions: Dim | None = Dim.static(self.num_directions)
        for index in [*range(1, 1 + states), 2 + states, 3 + states, 4 + states]:
            axis = 1 if index <= states else 0
            directions = None if directions is None else directions.merge(dim_of(shapes[index], axis))
        directions = checked(directions, "Dimension `num_directions` doesn't match to other inputs or `direction` "
                             "attribute.")
        hidden = self._check_weights(hidden, w_shape, r_shape, b_shape, self.gates, ("Second", "Second", "Second"), 1)
        seq_length = dim_of(shapes[0], 1)
        y = TensorType(element_type, Shape((batch, directions, seq_length, hidden)))
        state = TensorType(element_type, Shape((batch, directions, hidden)))
        return [y] + [state] * states

    def evaluate(self, inputs: Sequence[Array]) -> list[Array]:
        """Each direction over the time steps (a Python loop over time only; batch and gates vectorised)."""
        states = self.states
        x = inputs[0]
        initial = inputs[1:1 + states]
        lengths = np.asarray(integer_values(inputs[1 + states], "seq_lengths"), np.int64)
        w, r, b = inputs[2 + states:5 + states]
        batch, steps = x.shape[0], x.shape[1]
        directions = self.num_directions
        check(lengths.shape == (batch,), f"seq_lengths must hold one length per batch element ({batch}). "
                                         f"Got: {lengths.size}")
        check(w.shape[0] == directions and r.shape[0] == directions and b.shape[0] == directions
              and all(s.shape[1] == directions for s in initial),
              f"W, R, B and the initial states must have num_directions = {directions} ({self.direction})")
        reverse_any = self.direction.lower() != "forward"
        if reverse_any:
            check(bool(np.all((lengths >= 0) & (lengths <= steps))),
                  f"Incorrect input 'seq_lengths' values!: the reverse direction needs every length in "
                  f"[0, {steps}]. Got: {lengths.tolist()}")
        dtype = computing_dtype(x)
        step = self.make_step(dtype)
        ys, finals = [], []
        for d in range(directions):
            reverse = self.direction.lower() == "reverse" or d == 1
            check_run_shapes(x[:, 0], [s[:, d] for s in initial], w[d], r[d], b[d], self.gates, self.bias_gates,
                             None)
            y, last = run_direction(step, np.asarray(x, dtype), tuple(np.asarray(s[:, d], dtype) for s in initial),
                                    np.asarray(w[d], dtype), np.asarray(r[d], dtype), np.asarray(b[d], dtype),
                                    lengths, reverse)
            ys.append(y)
            finals.append(last)
        y_out = np.stack(ys, axis=1).astype(x.dtype)
        state_outs = [np.stack([f[i] for f in finals], axis=1).astype(x.dtype) for i in range(states)]
        return [y_out, *state_outs]


def run_direction(step: Step, x: Array, states: tuple[Array, ...], w: Array, r: Array,
                  b: Array, lengths: Array, reverse: bool) -> tuple[Array, list[Array]]:
    """One direction: Y ``[batch, steps, hidden]`` (zeros at and past each length) and the last states."""
    batch, steps, input_size = x.shape
    # Every step's input projection in one matrix product, laid out time-major so each step reads one block.
    xw = (x.reshape(batch * steps, input_size) @ w.T).reshape(batch, steps, -1)
    if reverse:
        xw = np.take_along_axis(xw, reversal_order(lengths, steps)[:, :, None], axis=1)
    xw = np.ascontiguousarray(xw.transpose(1, 0, 2))
    hidden = states[0].shape[-1]
    y = np.zeros((steps, batch, hidden), x.dtype)
    finals = [np.zeros_like(s) for s in states]
    current = states
    with np.errstate(over="ignore", invalid="ignore"):
        for t in range(steps):
            current = step(xw[t], current, r, b, None)
            active = (t < lengths)[:, None]
            y[t] = np.where(active, current[0], 0)
            ends_here = (lengths - 1 == t)[:, None]
            finals = [np.where(ends_here, new, old) for new, old in zip(current, finals, strict=True)]
    y = y.transpose(1, 0, 2)
    if reverse:
        y = np.take_along_axis(y, reversal_order(lengths, steps)[:, :, None], axis=1)
    return y, finals


__all__ = ["DIRECTIONS", "RECURRENT_TOLERANCE", "Recurrent", "RecurrentCell", "RecurrentSequence", "activation"]
