"""What MVN-6 and NormalizeL2 share: data normalised over the axes of a second input, with an ``eps`` and an
``eps_mode`` saying where eps goes (one of the member's ``eps_modes``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check


@dataclass(frozen=True)
class EpsModeNormalization(Op):
    """The ``eps`` and ``eps_mode`` attributes, the mode's check and the data shape kept."""

    inputs = Inputs.of(InputSpec("data"), InputSpec("axes"))
    eps_modes: ClassVar[tuple[str, ...]]

    eps: float = attribute()
    eps_mode: str = attribute()

    def __post_init__(self) -> None:
        # OpenVINO reads the mode in any case and writes MVN's in capitals: the text is kept as read
        check(self.eps_mode.lower() in self.eps_modes,
              f"Invalid 'eps_mode' value '{self.eps_mode}'. Expected one of: {', '.join(self.eps_modes)}")

    @property
    def mode(self) -> str:
        """``eps_mode`` in lower case."""
        return self.eps_mode.lower()
