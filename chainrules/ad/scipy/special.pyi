# chainrules.ad.scipy.special is scipy.special with its non-ufunc functions wrapped for the
# AD engines (filled at import time): same names, same signatures.
from scipy.special import *

__all__: list[str]
