"""fill_diagonal_ (ATen/native/Fill.cpp): the main diagonal of a tensor whose dimensions are all
equal (or of a matrix), filled as torch fills it: fill_ of an as_strided view of self (and, with
wrap=True on a tall matrix, of a second view continuing with the same stride past the first
width + 1 rows), so autograd records CopySlices around FillBackward, as in torch."""
import builtins

from .TensorShape import as_strided


def fill_diagonal_(self, fill_value, wrap=False):
    a = self._array
    n = a.ndim
    if n < 2:
        raise RuntimeError("dimensions must larger than 1")
    height, width = a.shape[0], a.shape[1]
    if n > 2 and any(s != height for s in a.shape):
        raise RuntimeError("all dimensions of input must be of equal length")
    step = builtins.sum(self.stride())
    size = builtins.min(height, width)
    as_strided(self, (size,), (step,), self.storage_offset()).fill_(fill_value)
    if wrap and n == 2 and height > width + 1:
        row = width + 1
        wrap_size = (a.size + row - 1) // row - size
        as_strided(self, (wrap_size,), (step,), self.storage_offset() + self.stride(0) * row).fill_(fill_value)
    return self
