# Type stubs for symshape.fx_out.
from typing import Any, Mapping, Optional, Sequence, Union

from symshape.fx import Conversion

def to_fx(graph: Any, conversion: Optional[Conversion] = None) -> Any: ...
def lower(conversion: Conversion, passes: Optional[Union[str, Sequence[str]]] = None,
          pipeline: Optional[str] = None,
          options: Optional[Mapping[str, Mapping[str, Any]]] = None,
          verify_torch: bool = False, verify_numerics: bool = False,
          seed: int = 0) -> Conversion: ...
def verify_torch(original: Conversion, lowered: Conversion, seed: int = 0,
                 rtol: Optional[float] = None, atol: Optional[float] = None) -> int: ...
def write_lowered(conversion: Conversion, path: str) -> None: ...
