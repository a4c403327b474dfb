"""The 23 modules of the simulated car, in the benchmark's state order."""

from __future__ import annotations

from execmem.suites.vehicle.modules.air_conditioner import AirConditioner
from execmem.suites.vehicle.modules.bluetooth import Bluetooth
from execmem.suites.vehicle.modules.center_display import CenterInformationDisplay
from execmem.suites.vehicle.modules.door import Door
from execmem.suites.vehicle.modules.foot_pedal import FootPedal
from execmem.suites.vehicle.modules.front_trunk import FrontTrunk
from execmem.suites.vehicle.modules.fuel_port import FuelPort
from execmem.suites.vehicle.modules.hud import HUD
from execmem.suites.vehicle.modules.instrument_panel import InstrumentPanel
from execmem.suites.vehicle.modules.light import Light
from execmem.suites.vehicle.modules.music import Music
from execmem.suites.vehicle.modules.navigation import Navigation
from execmem.suites.vehicle.modules.overhead_screen import OverheadScreen
from execmem.suites.vehicle.modules.radio import Radio
from execmem.suites.vehicle.modules.rearview_mirror import RearviewMirror
from execmem.suites.vehicle.modules.seat import Seat
from execmem.suites.vehicle.modules.steering_wheel import SteeringWheel
from execmem.suites.vehicle.modules.sunroof import Sunroof
from execmem.suites.vehicle.modules.sunshade import Sunshade
from execmem.suites.vehicle.modules.trunk import Trunk
from execmem.suites.vehicle.modules.video import Video
from execmem.suites.vehicle.modules.window import Window
from execmem.suites.vehicle.modules.wiper import Wiper

MODULE_CLASSES = (
    HUD,
    CenterInformationDisplay,
    InstrumentPanel,
    FrontTrunk,
    Trunk,
    FuelPort,
    RearviewMirror,
    Sunroof,
    Navigation,
    Seat,
    Radio,
    AirConditioner,
    FootPedal,
    Bluetooth,
    Video,
    Window,
    Door,
    Sunshade,
    Wiper,
    Music,
    OverheadScreen,
    SteeringWheel,
    Light,
)
