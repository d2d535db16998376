from engine.compiled import use_compiled

use_compiled()
