# chainrules.ad.numpy.random is numpy.random itself (registered by chainrules.ad.numpy)
from numpy.random import *
