"""Ops of OpenVINO's 'movement' spec category."""
